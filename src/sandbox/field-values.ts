/**
 * Value checks shared by the estimate and bill rules. Numbers and identifiers are accepted as
 * JSON numbers or as strings of decimal text, as the service's JSON binder converts both
 * (DECISIONS.md, "Encodings accepted").
 */
import { bad } from './rule-violation.ts';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const IDENTIFIER = /^\d+$/;
const LOCAL_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,7})?$/;

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function requiredText(where: string, v: unknown): string {
  if (typeof v !== 'string' || v.trim() === '') throw bad(`${where} is required and must be a non-empty string.`);
  return v;
}

export function decimal(where: string, v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && DECIMAL.test(v.trim())) return Number(v.trim());
  throw bad(`${where} must be a decimal number (got ${JSON.stringify(v)}).`);
}

export function identifier(where: string, v: unknown): number {
  if (typeof v === 'number' && Number.isSafeInteger(v) && v > 0) return v;
  if (typeof v === 'string' && IDENTIFIER.test(v.trim())) {
    const n = Number(v.trim());
    if (Number.isSafeInteger(n) && n > 0) return n;
  }
  throw bad(`${where} must be a positive integer identifier (got ${JSON.stringify(v)}).`);
}

export function text(where: string, v: unknown): string {
  if (typeof v !== 'string') throw bad(`${where} must be a string (got ${JSON.stringify(v)}).`);
  return v;
}

export function scalar(where: string, v: unknown): string | number {
  if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw bad(`${where} must be a string or a number (got ${JSON.stringify(v)}).`);
}

/** JSON booleans, or the strings "true"/"false" of the observed bill shape (docs/service.md, Bills). */
export function flag(where: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === 'true';
  throw bad(`${where} must be true or false (got ${JSON.stringify(v)}).`);
}

/** Seed §2.3: ISO 8601 date-time without zone, e.g. 2024-03-05T00:00:00. */
export function localDateTime(where: string, v: unknown): string {
  const m = typeof v === 'string' ? LOCAL_DATE_TIME.exec(v) : null;
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
    const t = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
    if (t.getUTCFullYear() === y && t.getUTCMonth() === mo - 1 && t.getUTCDate() === d && h < 24 && mi < 60 && s < 60) {
      return v as string;
    }
  }
  throw bad(`${where} must be an ISO 8601 date-time without zone, like 2024-03-05T00:00:00 (got ${JSON.stringify(v)}).`);
}

export type FieldKind = 'text' | 'decimal' | 'identifier' | 'scalar' | 'flag' | 'date';

const CHECKS: Record<FieldKind, (where: string, v: unknown) => unknown> = {
  text, decimal, identifier, scalar, flag, date: localDateTime,
};

/** Copies the listed optional fields that are present, checked and normalized. */
export function copyFields(
  where: string,
  source: Record<string, unknown>,
  spec: Readonly<Record<string, FieldKind>>,
  target: Record<string, unknown>,
): void {
  for (const [name, kind] of Object.entries(spec)) {
    const v = source[name];
    target[name] = present(v) ? CHECKS[kind](`${where}${name}`, v) : null;
  }
}

/** An optional array: absent or null is `undefined`; anything but an array is refused. */
export function optionalArray(where: string, v: unknown): unknown[] | undefined {
  if (!present(v)) return undefined;
  if (!Array.isArray(v)) throw bad(`${where} must be an array.`);
  return v;
}

export function element(where: string, v: unknown): Record<string, unknown> {
  if (!isObject(v)) throw bad(`${where} must be an object.`);
  return v;
}

import { UsageError } from '../errors/index.ts';

/** A whole-number flag within bounds, or a UsageError naming the flag and what it got. */
export function intOption(flag: string, value: unknown, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${flag} needs a value`);
  if (!/^\s*-?\d+\s*$/.test(String(value)) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a whole number from ${min} to ${max}`);
  }
  return n;
}

export function numberOption(flag: string, value: unknown, min: number, max: number): number {
  const n = Number(value);
  if (typeof value !== 'string' && typeof value !== 'number') throw new UsageError(`${flag} needs a value`);
  if (String(value).trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`${flag} ${JSON.stringify(value)}: expected a number from ${min} to ${max}`);
  }
  return n;
}

export function choiceOption<T extends string>(flag: string, value: unknown, choices: readonly T[]): T {
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} ${JSON.stringify(value)}: expected one of ${choices.join(', ')}`);
}

/** A yes/no flag: `true|false` or `yes|no` (as cells accept them), in any case. */
export function boolOption(flag: string, value: unknown): boolean {
  if (value === true || value === false) return value;
  const v = typeof value === 'string' ? value.trim().toLowerCase() : '';
  if (v === 'true' || v === 'yes') return true;
  if (v === 'false' || v === 'no') return false;
  throw new UsageError(`${flag} ${JSON.stringify(value)}: expected true, false, yes or no`);
}

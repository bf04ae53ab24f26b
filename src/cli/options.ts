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

export function boolOption(flag: string, value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw new UsageError(`${flag} ${JSON.stringify(value)}: expected true or false`);
}

import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import dotenv from 'dotenv';
import type { z } from 'zod';
import { ConfigError } from './errors/index.ts';

/** The variables the tool reads: the process environment over `.env` (`readEnv`), or a test's own. */
export type Env = Record<string, string | undefined>;

/**
 * The process environment over the `.env` file of the working directory: the real environment
 * wins (README, Configuration), as with dotenv's default of not overriding.
 */
export function readEnv(cwd = process.cwd(), env: Env = process.env): Env {
  const file = resolve(cwd, '.env');
  if (!existsSync(file)) return { ...env };
  let parsed: Record<string, string>;
  try {
    parsed = dotenv.parse(readFileSync(file));
  } catch (err) {
    throw new ConfigError(`cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  return { ...parsed, ...env };
}

/**
 * The variables of `schema` (one key per variable) read from `env` and checked: an empty variable
 * counts as unset, and the first bad one is a ConfigError `NAME="value": what to write instead`.
 * `shown` prints a value for that message (e.g. with a password masked).
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: Env, shown: (name: string, value: string) => string = (_, v) => v): z.output<S> {
  const input = Object.fromEntries(Object.keys(schema.shape).map((name) => [name, env[name] || undefined]));
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0]);
  throw new ConfigError(`${name}=${JSON.stringify(shown(name, env[name] ?? ''))}: ${issue.message}`);
}

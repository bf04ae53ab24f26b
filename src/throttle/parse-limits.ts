import { ConfigError } from '../errors/index.ts';
import { PUBLISHED_LIMITS } from '../published-limits.ts';
import { WINDOW_NAMES, isWindowName, type WindowName } from './windows.ts';

/** Requests allowed per window; a window that is absent is not limited. */
export type Limits = Partial<Record<WindowName, number>>;

/** The default budget: the one the real service publishes per API key (README, Configuration; src/published-limits.ts). */
export const DEFAULT_LIMITS: Readonly<Limits> = PUBLISHED_LIMITS;

const EXAMPLE = 'e.g. hour=500,day=10000 or none';

/**
 * Parses `BUILDSYNC_LIMITS` (or `BUILDSYNC_<NAME>_LIMITS`, named by `variable` in errors).
 * Undefined or blank gives the default budget; `none` gives no configured limit (the tool then
 * relies on 429s and what it learns from them).
 */
export function parseLimits(text: string | undefined, variable = 'BUILDSYNC_LIMITS'): Limits {
  if (text === undefined || text.trim() === '') return { ...DEFAULT_LIMITS };
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'none') return {};
  const limits: Limits = {};
  for (const rawPart of trimmed.split(',')) {
    const part = rawPart.trim();
    if (part === '') {
      throw new ConfigError(`${variable}=${JSON.stringify(text)}: empty entry between commas; write window=count pairs, ${EXAMPLE}`);
    }
    const eq = part.indexOf('=');
    if (eq === -1) {
      const hint = part.toLowerCase() === 'none' ? '"none" cannot be combined with limits' : 'expected window=count';
      throw new ConfigError(`${variable}: ${JSON.stringify(part)}: ${hint}, ${EXAMPLE}`);
    }
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim();
    if (!isWindowName(name)) {
      throw new ConfigError(`${variable}: unknown window ${JSON.stringify(part.slice(0, eq).trim())} in ${JSON.stringify(part)}; use ${WINDOW_NAMES.join(', ')}, ${EXAMPLE}`);
    }
    if (limits[name] !== undefined) {
      throw new ConfigError(`${variable}: window ${name} is given twice; give each window once, ${EXAMPLE}`);
    }
    const n = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) {
      throw new ConfigError(`${variable}: ${JSON.stringify(part)}: the limit must be a whole number of requests, at least 1, ${EXAMPLE}`);
    }
    limits[name] = n;
  }
  return limits;
}

/** The inverse of parseLimits: `hour=500,day=10000`, or `none`. Shortest window first. */
export function formatLimits(limits: Limits): string {
  const parts = WINDOW_NAMES.filter((w) => limits[w] !== undefined).map((w) => `${w}=${limits[w]}`);
  return parts.length ? parts.join(',') : 'none';
}

/**
 * Every sandbox default lives here, and every option is checked once at start-up with a message
 * that names the bad value (node-csv's normalize_options).
 */
import { ConfigError } from '../errors/index.ts';
import { PUBLISHED_LIMITS } from '../published-limits.ts';
import type { SandboxFaults, SandboxOptions, WindowName } from './types.ts';

export const WINDOW_NAMES: readonly WindowName[] = ['second', 'minute', 'hour', 'day', 'week', 'month'];

/** Window lengths in real ms at timeScale 1; a month is 30 days (DECISIONS.md). */
export const DEFAULT_WINDOW_MS: Readonly<Record<WindowName, number>> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
  month: 30 * 86_400_000,
};

/** The per-key limits the real service publishes (src/published-limits.ts). */
export const DEFAULT_LIMITS: Readonly<Partial<Record<WindowName, number>>> = PUBLISHED_LIMITS;

/** Above this the dataset would no longer be cheap to index; the benchmark needs 200,000. */
export const MAX_PROJECTS = 2_000_000;

export type Limits = Partial<Record<WindowName, number>> | 'none';

export interface NormalizedFaults {
  failBeforeStore: number;
  failAfterStore: number;
  dropBeforeStore: number;
  dropAfterStore: number;
  onGets: boolean;
  cutListingsAfter: number | undefined;
  seed: number | undefined;
}

export interface NormalizedOptions {
  host: string;
  port: number;
  projects: number;
  seed: number;
  limits: Limits;
  windowMs: Record<WindowName, number>;
  timeScale: number;
  counting: 'rolling' | 'aligned';
  retryAfterHeader: boolean;
  latencyMs: number;
  faults: NormalizedFaults;
  prerender: boolean;
}

export function normalizeOptions(opts: SandboxOptions = {}): NormalizedOptions {
  const windowMs = { ...DEFAULT_WINDOW_MS };
  for (const [name, ms] of Object.entries(opts.windowMs ?? {})) {
    if (!WINDOW_NAMES.includes(name as WindowName)) {
      throw new ConfigError(`sandbox windowMs: unknown window "${name}"; use one of ${WINDOW_NAMES.join(', ')}`);
    }
    windowMs[name as WindowName] = positive(`windowMs.${name}`, ms);
  }
  const counting = opts.counting ?? 'rolling';
  if (counting !== 'rolling' && counting !== 'aligned') {
    throw new ConfigError(`sandbox counting: got ${JSON.stringify(counting)}; use 'rolling' or 'aligned'`);
  }
  return {
    host: opts.host ?? '127.0.0.1',
    port: integerIn('port', opts.port ?? 0, 0, 65_535),
    projects: integerIn('projects', opts.projects ?? 50, 0, MAX_PROJECTS),
    seed: integerIn('seed', opts.seed ?? 1, 0, 2 ** 32 - 1),
    limits: normalizeLimits(opts.limits ?? DEFAULT_LIMITS),
    windowMs,
    timeScale: positive('timeScale', opts.timeScale ?? 1),
    counting,
    retryAfterHeader: opts.retryAfterHeader ?? false,
    latencyMs: normalizeLatency(opts.latencyMs ?? 0),
    faults: normalizeFaults(opts.faults ?? {}),
    prerender: flag('prerender', opts.prerender ?? false),
  };
}

export function normalizeLimits(limits: SandboxOptions['limits']): Limits {
  if (limits === undefined) return { ...DEFAULT_LIMITS };
  if (limits === 'none') return 'none';
  const out: Partial<Record<WindowName, number>> = {};
  for (const [name, n] of Object.entries(limits)) {
    if (!WINDOW_NAMES.includes(name as WindowName)) {
      throw new ConfigError(`sandbox limits: unknown window "${name}"; use one of ${WINDOW_NAMES.join(', ')}`);
    }
    if (n === undefined) continue;
    out[name as WindowName] = integerIn(`limits.${name}`, n, 1, Number.MAX_SAFE_INTEGER);
  }
  return out;
}

export function normalizeLatency(ms: number): number {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    throw new ConfigError(`sandbox latencyMs: got ${JSON.stringify(ms)}; use a number of milliseconds >= 0`);
  }
  return ms;
}

export function normalizeFaults(f: SandboxFaults): NormalizedFaults {
  const out: NormalizedFaults = {
    failBeforeStore: probability('failBeforeStore', f.failBeforeStore),
    failAfterStore: probability('failAfterStore', f.failAfterStore),
    dropBeforeStore: probability('dropBeforeStore', f.dropBeforeStore),
    dropAfterStore: probability('dropAfterStore', f.dropAfterStore),
    onGets: f.onGets ?? false,
    cutListingsAfter: f.cutListingsAfter === undefined ? undefined : integerIn('faults.cutListingsAfter', f.cutListingsAfter, 0, 2 ** 31 - 1),
    seed: f.seed === undefined ? undefined : integerIn('faults.seed', f.seed, 0, 2 ** 32 - 1),
  };
  if (out.failBeforeStore + out.dropBeforeStore > 1 || out.failAfterStore + out.dropAfterStore > 1) {
    throw new ConfigError(
      'sandbox faults: failBeforeStore + dropBeforeStore and failAfterStore + dropAfterStore must each be at most 1',
    );
  }
  return out;
}

function probability(name: string, p: number | undefined): number {
  if (p === undefined) return 0;
  if (typeof p !== 'number' || !(p >= 0 && p <= 1)) {
    throw new ConfigError(`sandbox faults.${name}: got ${JSON.stringify(p)}; use a probability between 0 and 1`);
  }
  return p;
}

function positive(name: string, n: unknown): number {
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0) {
    throw new ConfigError(`sandbox ${name}: got ${JSON.stringify(n)}; use a number greater than 0`);
  }
  return n;
}

function integerIn(name: string, n: unknown, min: number, max: number): number {
  if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`sandbox ${name}: got ${JSON.stringify(n)}; use an integer from ${min} to ${max}`);
  }
  return n;
}

function flag(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ConfigError(`sandbox ${name}: got ${JSON.stringify(value)}; use true or false`);
  return value;
}

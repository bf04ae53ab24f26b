import { ConfigError } from '../errors/index.ts';
import { WINDOW_NAMES, type Limits } from './options.ts';
import type { WindowName } from './types.ts';

/**
 * Parses `hour=500,day=10000` or `none` (the CLI's `--limits`, README, Configuration syntax).
 * Throws ConfigError naming the bad part and what to write instead.
 */
export function parseSandboxLimits(text: string): Limits {
  const trimmed = text.trim();
  if (trimmed.toLowerCase() === 'none') return 'none';
  const hint = `write e.g. "hour=500,day=10000" (windows: ${WINDOW_NAMES.join(', ')}) or "none"`;
  if (trimmed === '') throw new ConfigError(`sandbox limits: empty value; ${hint}`);
  const out: Partial<Record<WindowName, number>> = {};
  for (const part of trimmed.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\d+)\s*$/i.exec(part);
    if (!m) throw new ConfigError(`sandbox limits: cannot read "${part.trim()}"; ${hint}`);
    const name = m[1]!.toLowerCase() as WindowName;
    if (!WINDOW_NAMES.includes(name)) throw new ConfigError(`sandbox limits: unknown window "${m[1]}"; ${hint}`);
    if (out[name] !== undefined) throw new ConfigError(`sandbox limits: window "${name}" given twice; ${hint}`);
    const n = Number(m[2]);
    if (!Number.isSafeInteger(n) || n < 1) {
      throw new ConfigError(`sandbox limits: "${part.trim()}" needs a whole number of requests of at least 1; ${hint}`);
    }
    out[name] = n;
  }
  return out;
}

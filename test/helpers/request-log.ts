import type { RequestLogEntry } from '../../src/sandbox/index.ts';

/** Arrival times (ms) of the requests the sandbox accepted (any answer but 429 and 401), sorted. */
export function acceptedTimes(log: readonly RequestLogEntry[], email?: string): number[] {
  return log
    .filter((e) => e.status !== 429 && e.status !== 401 && (email === undefined || e.email === email))
    .map((e) => e.at)
    .sort((a, b) => a - b);
}

/** Most entries in any interval [a, a + len) of the sorted times. */
export function maxInSlidingInterval(times: readonly number[], len: number): number {
  let max = 0;
  let j = 0;
  for (let i = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= len) j++;
    max = Math.max(max, i - j + 1);
  }
  return max;
}

/** Most entries in any bucket [k * len, (k + 1) * len). */
export function maxInAlignedBucket(times: readonly number[], len: number): number {
  const buckets = new Map<number, number>();
  for (const t of times) buckets.set(Math.floor(t / len), (buckets.get(Math.floor(t / len)) ?? 0) + 1);
  return Math.max(0, ...buckets.values());
}

/** Counts per consecutive interval of `len` starting at the first time: how 429s spread over windows. */
export function perWindowCounts(times: readonly number[], len: number): number[] {
  if (times.length === 0) return [];
  const start = times[0]!;
  const out: number[] = [];
  for (const t of times) {
    const k = Math.floor((t - start) / len);
    while (out.length <= k) out.push(0);
    out[k]!++;
  }
  return out;
}

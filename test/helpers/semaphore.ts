/**
 * At most `n` calls at once, in the order asked: for tables of cases that each spawn the CLI
 * (0.5–1.5 s of CPU each) on a machine of two cores.
 */
export function semaphore(n: number): <T>(fn: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async (fn) => {
    if (active < n) active++;
    else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over, not freed
    try {
      return await fn();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  };
}

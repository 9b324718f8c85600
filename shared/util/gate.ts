/**
 * At most `limit` calls of `run` in flight at once; the others wait their turn in arrival order. For a
 * bound on a resource inside work that is otherwise wider (e.g. whole-file downloads among HEADs).
 */
export interface Gate {
  run<T>(fn: () => Promise<T>): Promise<T>;
}

export function createGate(limit: number): Gate {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  return {
    async run<T>(fn: () => Promise<T>): Promise<T> {
      if (inFlight >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else inFlight += 1;
      try {
        return await fn();
      } finally {
        // Hand the slot straight to the next waiter (inFlight unchanged), or free it.
        const next = waiting.shift();
        if (next) next();
        else inFlight -= 1;
      }
    },
  };
}

import { describe, expect, it } from 'vitest';
import { createGate } from '../../shared/util';

describe('createGate (issue 28: whole-file GETs of the deletion check stay bounded)', () => {
  it('keeps at most `limit` calls in flight, in arrival order, and frees the slot when a call throws', async () => {
    const gate = createGate(2);
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    const releases: (() => void)[] = [];
    const call = (n: number, fail = false) =>
      gate.run(async () => {
        started.push(n);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise<void>((resolve) => releases.push(resolve));
        inFlight -= 1;
        if (fail) throw new Error(`call ${n}`);
        return n;
      });
    const all = Promise.allSettled([call(1, true), call(2), call(3), call(4)]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(started).toEqual([1, 2]);
    for (let i = 0; i < 4; i++) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    const settled = await all;
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(started).toEqual([1, 2, 3, 4]);
    expect(most).toBe(2);
  });
});

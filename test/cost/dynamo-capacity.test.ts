import { describe, expect, it } from 'vitest';
import {
  chooseCapacity,
  DECREASES_MAX_PER_DAY,
  decideTables,
  defaultPolicy,
  fleetLoad,
  MINUTES_PER_WEEK,
  simulateAutoScaling,
  withMirrorTable,
} from '../../bench/cost/dynamo-capacity';

/** Units per minute: `perSecond` units a second for `minutes` minutes. */
const flat = (perSecond: number, minutes: number) => new Array<number>(minutes).fill(perSecond * 60);

const prices = {
  read: { eurPerRequestUnit: 1e-6, eurPerUnitHour: 1e-4 },
  write: { eurPerRequestUnit: 1e-6, eurPerUnitHour: 1e-4 },
};

describe('DynamoDB auto scaling, simulated (issue 28)', () => {
  it('a steady load is held at the target utilisation: ceil(load ÷ 0.7), nothing throttled', () => {
    const run = simulateAutoScaling(flat(7, 600), defaultPolicy(1, 100));
    expect(run.capacity.every((c) => c === 10)).toBe(true);
    expect(run.throttledUnits).toBe(0);
    expect(run.unitHours).toBeCloseTo(10 * 10, 6);
  });

  it('a step up is served from burst capacity while the alarm waits its 2 minutes, then scaled up', () => {
    // 7/s for an hour fills the burst bucket (10 units × 300 s); 20/s then needs 29 units.
    const demand = [...flat(7, 60), ...flat(20, 60)];
    const run = simulateAutoScaling(demand, defaultPolicy(1, 100));
    expect(run.capacity[61]).toBe(10);
    expect(run.capacity[62]).toBe(29);
    expect(run.throttledUnits).toBe(0);
    // Without burst capacity the alarm sees only what was served (10/s), so target tracking climbs in
    // steps (10 → 15 → 22): 2 minutes × 10/s refused at 10 units, then 2 × 5/s at 15.
    const bare = simulateAutoScaling(demand, { ...defaultPolicy(1, 100), burstSeconds: 0 });
    expect(bare.capacity.slice(60, 66)).toEqual([10, 10, 15, 15, 22, 22]);
    expect(bare.throttledUnits).toBe(2 * 10 * 60 + 2 * 5 * 60);
  });

  it('throttles when the policy is too tight: a maximum below the peak refuses the rest', () => {
    const demand = [...flat(2, 60), ...flat(30, 120), ...flat(2, 60)];
    const tight = simulateAutoScaling(demand, defaultPolicy(1, 10));
    expect(tight.maxUnits).toBe(10);
    // 120 minutes at 30/s against 10 units and a 300 s bucket of at most 10 units.
    expect(tight.throttledUnits).toBeGreaterThan(120 * 20 * 60 - 10 * 300 - 1);
    expect(tight.throttledMinutes).toBeGreaterThan(100);
    const chosen = chooseCapacity({ target: 'T', kind: 'write', demandPerMinute: demand }, prices.write);
    expect(chosen.run.throttledUnits).toBe(0);
    expect(chosen.policy.maxUnits).toBeGreaterThanOrEqual(Math.ceil(30 / 0.7));
  });

  it('scales down only after 15 minutes 20 points below the target, and at most 27 times a UTC day', () => {
    const demand = [...flat(14, 30), ...flat(1, 60)];
    const run = simulateAutoScaling(demand, defaultPolicy(1, 100));
    expect(run.capacity[30]).toBe(20);
    expect(run.capacity[30 + 14]).toBe(20);
    expect(run.capacity[30 + 15]).toBe(2);
    // A load that swings every 10 minutes would scale down 72 times a day; AWS allows 4, then one an
    // hour after the last (≤ 27).
    const swings = Array.from({ length: 1440 }, (_, m) => (Math.floor(m / 10) % 2 === 0 ? 1200 : 6));
    const daily = simulateAutoScaling(swings, { ...defaultPolicy(1, 100), scaleDownAfterMinutes: 5 });
    const downAt = daily.capacity.flatMap((c, m) => (m > 0 && c < (daily.capacity[m - 1] ?? 0) ? [m] : []));
    expect(downAt.length).toBe(daily.decreases);
    expect(daily.decreases).toBeLessThanOrEqual(DECREASES_MAX_PER_DAY);
    expect(daily.decreases).toBeGreaterThan(20);
    for (let i = 4; i < downAt.length; i += 1)
      expect((downAt[i] ?? 0) - (downAt[i - 1] ?? 0)).toBeGreaterThanOrEqual(60);
  });

  it("a burst in a minute's first second (the planner's leases) meets one second's capacity and the bucket, not the minute's", () => {
    const fixed = { ...defaultPolicy(10, 10) };
    // 300 units a minute is 5/s on average: 10 units serve it spread, not at once without a bucket.
    const demand = flat(5, 10);
    const atOnce = demand.map(() => 300);
    expect(simulateAutoScaling(demand, { ...fixed, burstSeconds: 0 }).throttledUnits).toBe(0);
    const bare = simulateAutoScaling(demand, { ...fixed, burstSeconds: 0 }, { atOncePerMinute: atOnce });
    expect(bare.throttledUnits).toBeCloseTo(10 * (300 - 10), 6);
    // With the bucket (300 s × 10 units, full at the start) each burst is lent and paid back in the
    // minute's other 59 seconds (59 × 10 - 0 ≥ 290).
    expect(simulateAutoScaling(demand, fixed, { atOncePerMinute: atOnce }).throttledUnits).toBe(0);
    // 900 at once each minute: the bucket lends 890 and gets 590 back, so by the ninth minute it holds
    // less than a burst — the per-minute mean alone (600 fresh + 300 from the bucket) never throttles.
    const heavy = demand.map(() => 900);
    const drained = simulateAutoScaling(heavy, fixed, { atOncePerMinute: heavy });
    expect(drained.throttledMinutes).toBe(2);
    expect(simulateAutoScaling(heavy, fixed).throttledUnits).toBe(0);
  });

  it('the choice tries targets of 70, 80 and 90 % and keeps the cheapest that throttles nothing', () => {
    const steady = { target: 'T', kind: 'write' as const, demandPerMinute: flat(9, 24 * 60) };
    const at70 = chooseCapacity(steady, prices.write, { targets: [0.7] });
    const chosen = chooseCapacity(steady, prices.write);
    expect(at70.policy.targetUtilisation).toBe(0.7);
    expect(chosen.policy.targetUtilisation).toBe(0.9);
    // ceil(9 ÷ 0.9) = 10 units against ceil(9 ÷ 0.7) = 13, nothing throttled either way.
    expect(chosen.run.meanUnits).toBe(10);
    expect(at70.run.meanUnits).toBe(13);
    expect(chosen.run.throttledUnits).toBe(0);
    expect(chosen.provisionedEurPerWeek).toBeLessThan(at70.provisionedEurPerWeek);
  });

  it('chooses provisioned for a steady load (3.5× cheaper a unit) and on-demand for a near-idle one', () => {
    const week = (perSecond: number) => flat(perSecond, MINUTES_PER_WEEK);
    const [steady, idle] = decideTables(
      [
        { target: 'Busy', kind: 'write', demandPerMinute: week(9) },
        { target: 'Busy/byX', kind: 'write', demandPerMinute: week(1) },
        { target: 'Quiet', kind: 'read', demandPerMinute: week(0.001) },
      ],
      {
        read: { eurPerRequestUnit: 0.13e-6, eurPerUnitHour: 0.136e-3 },
        write: { eurPerRequestUnit: 0.66e-6, eurPerUnitHour: 0.68e-3 },
      },
    );
    expect(steady?.mode).toBe('provisioned');
    expect(steady?.choices.map((c) => c.target)).toEqual(['Busy', 'Busy/byX']);
    expect(steady?.provisionedEurPerWeek).toBeLessThan(steady?.onDemandEurPerWeek ?? 0);
    expect(idle?.mode).toBe('onDemand');
    // One target utilisation per table (the stack applies one): the cheapest that throttles nothing.
    expect(steady?.targetUtilisation).toBe(0.9);
    for (const c of steady?.choices ?? []) expect(c.policy.targetUtilisation).toBe(0.9);
  });
});

describe('the fleet’s load per minute (issue 28)', () => {
  it('holds due runs back when SCH-5’s slots are full, and keeps every unit', () => {
    const starts = new Array<number>(MINUTES_PER_WEEK).fill(0);
    starts[180] = 100; // a night's full syncs, all due at 03:00
    const load = fleetLoad({
      kinds: [{ startsPerMinute: starts, minutes: 10, units: { State: { read: 6, write: 3 } } }],
      slots: 50,
      fixed: [
        {
          perMinute: new Array<number>(MINUTES_PER_WEEK).fill(1),
          units: { 'State/byDueAt': { read: 2, write: 0 } },
        },
      ],
    });
    const state = load.State as { read: number[]; write: number[] };
    // 50 start at 03:00, the other 50 when the first end, ten minutes later: 5 runs' share a minute.
    expect(state.write[180]).toBeCloseTo((50 / 10) * 3, 9);
    expect(state.write[195]).toBeCloseTo((50 / 10) * 3, 9);
    expect(state.write[200]).toBe(0);
    expect(state.write.reduce((s, x) => s + x, 0)).toBeCloseTo(100 * 3, 6);
    expect(load['State/byDueAt']?.read.reduce((s, x) => s + x, 0)).toBe(2 * MINUTES_PER_WEEK);
  });

  it('places what a run spends at its start (its lease) in its start minute, as arriving at once', () => {
    const starts = new Array<number>(MINUTES_PER_WEEK).fill(0);
    starts[180] = 10;
    const load = fleetLoad({
      kinds: [
        {
          startsPerMinute: starts,
          minutes: 5,
          units: { State: { read: 0, write: 7 } },
          atStart: { State: { read: 0, write: 2 } },
        },
      ],
      slots: 50,
      fixed: [],
    });
    const state = load.State as { write: number[]; writeAtOnce: number[] };
    expect(state.writeAtOnce[180]).toBeCloseTo(10 * 2, 9);
    expect(state.writeAtOnce[181]).toBe(0);
    // The lease in the start minute, the other 5 units of each run over its 5 minutes.
    expect(state.write[180]).toBeCloseTo(10 * 2 + (10 * 5) / 5, 9);
    expect(state.write[181]).toBeCloseTo((10 * 5) / 5, 9);
    expect(state.write.reduce((s, x) => s + x, 0)).toBeCloseTo(10 * 7, 6);
  });
});

describe("the mirror in its own table: a run's units by target (issue 28)", () => {
  const names = { state: 'State', mirror: 'Mirror', index: 'byList' };

  it("the mirror items' writes and reads by key and every unit of State's list index move to the Mirror table; the rest stays", () => {
    const run = {
      State: { read: 6, write: 9 },
      'State/byDueAt': { read: 0, write: 3 },
      'State/byList': { read: 1, write: 4 },
    };
    const moved = withMirrorTable(run, { writes: 4, reads: 2.5 }, names);
    expect(moved).toEqual({
      State: { read: 3.5, write: 5 },
      'State/byDueAt': { read: 0, write: 3 },
      Mirror: { read: 2.5, write: 4 },
      'Mirror/byList': { read: 1, write: 4 },
    });
    // Nothing is lost or counted twice.
    const total = (u: Record<string, { read: number; write: number }>) =>
      Object.values(u).reduce((s, x) => s + x.read + x.write, 0);
    expect(total(moved)).toBe(total(run));
  });

  it('never moves more than State wrote or read (a run that wrote no mirror item moves nothing)', () => {
    expect(withMirrorTable({ State: { read: 2, write: 1 } }, { writes: 3, reads: 5 }, names)).toEqual({
      State: { read: 0, write: 0 },
      Mirror: { read: 2, write: 1 },
    });
  });
});

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
});

describe("the mirror in its own table: a run's units by target (issue 28)", () => {
  const names = { state: 'State', mirror: 'Mirror', index: 'byList' };

  it("the mirror items' writes and every unit of State's list index move to the Mirror table; the rest stays", () => {
    const run = {
      State: { read: 6, write: 9 },
      'State/byDueAt': { read: 0, write: 3 },
      'State/byList': { read: 1, write: 4 },
    };
    const moved = withMirrorTable(run, 4, names);
    expect(moved).toEqual({
      State: { read: 6, write: 5 },
      'State/byDueAt': { read: 0, write: 3 },
      Mirror: { read: 0, write: 4 },
      'Mirror/byList': { read: 1, write: 4 },
    });
    // Nothing is lost or counted twice.
    const total = (u: Record<string, { read: number; write: number }>) =>
      Object.values(u).reduce((s, x) => s + x.read + x.write, 0);
    expect(total(moved)).toBe(total(run));
  });

  it('never moves more than State wrote (a run that wrote no mirror item moves nothing)', () => {
    expect(withMirrorTable({ State: { read: 2, write: 1 } }, 3, names)).toEqual({
      State: { read: 2, write: 0 },
      Mirror: { read: 0, write: 1 },
    });
  });
});

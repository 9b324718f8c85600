import { describe, expect, it } from 'vitest';
import {
  admitRuns,
  DEFAULT_EXPECTED_REQUESTS,
  type DueRun,
  expectedRequests,
  fullSyncSlotsFor,
  type HostModel,
  type HostSourceInput,
  hostModelsOf,
  hostSourceInputOf,
  isSaturated,
  otherFetchAllowed,
  planHostFullSyncs,
  STRETCH_DUE_SHARE,
  stretchDecision,
  type TurnState,
} from '../../shared/hosts';
import {
  applyRunOutcome,
  decideSource,
  initialScheduleState,
  planSyncSlots,
  type SourceDecision,
} from '../../shared/schedule';
import { afterSync, iso, settings, source, syncDecision } from '../support/schedule-factories';

const NOW = iso('2026-12-02 10:00');
const NOW_MS = Date.parse(NOW);

function src(sourceId: string, host: string, overrides: Partial<HostSourceInput> = {}): HostSourceInput {
  return {
    sourceId,
    host,
    requestIntervalSeconds: 1,
    intervalMinutes: 10,
    expectedIncrementalRequests: 16,
    ...overrides,
  };
}

/** Due runs overdue by `i` minutes, first the most overdue. */
function due(sourceId: string, host: string, minutesOverdue: number, extra: Partial<DueRun> = {}): DueRun {
  return {
    decision: syncDecision({ sourceId, dueAt: new Date(NOW_MS - minutesOverdue * 60_000).toISOString() }),
    host,
    ...extra,
  };
}

/** Issue 27's loopback case: six sources on 127.0.0.1 (different ports), three on hosts of their own. */
const LOOPBACK = [
  ...[1, 2, 3, 4, 5, 6].map((i) => src(`shared-${i}`, `http://127.0.0.1:${8000 + i}/oparl`)),
  src('lone-2', 'http://127.0.0.2:9000/'),
  src('lone-3', 'http://127.0.0.3:9000/'),
  src('lone-4', 'http://127.0.0.4:9000/'),
];

describe('the host model (RATE-9, RATE-1, RATE-2)', () => {
  it('RATE-2: sources on one hostname with different ports, case or a trailing dot share one host', () => {
    const models = hostModelsOf([
      src('a', 'http://RIS.example.de:8080/'),
      src('b', 'https://ris.example.de./oparl'),
      src('c', 'ris.example.de', { requestIntervalSeconds: 3 }),
    ]);
    expect([...models.keys()]).toEqual(['ris.example.de']);
    const m = models.get('ris.example.de');
    // RATE-2: the largest interval of any source on the host is the host's pace.
    expect(m?.intervalMs).toBe(3000);
    expect(m?.capacity).toBeCloseTo(1 / 3);
    expect(m?.sourceIds).toEqual(['a', 'b', 'c']);
  });

  it('RATE-1: capacity never above one request per second; Crawl-delay (ROB-10) and other fetches lower it', () => {
    const m = hostModelsOf(
      [src('a', 'h.example', { requestIntervalSeconds: 0.2 })],
      new Map([['h.example', { crawlDelayMs: 2000, otherRequestsPerSecond: 0.1 }]]),
      NOW_MS,
    ).get('h.example');
    expect(m?.intervalMs).toBe(2000);
    expect(m?.paceRequestsPerSecond).toBeCloseTo(0.5);
    expect(m?.capacity).toBeCloseTo(0.4);
  });

  it('RATE-9 item 5: other fetches take at most half the pace, so the syncs are never starved', () => {
    const m = hostModelsOf(
      [src('a', 'h.example')],
      new Map([['h.example', { otherRequestsPerSecond: 5 }]]),
    ).get('h.example');
    expect(m?.capacity).toBeCloseTo(0.5);
    if (m === undefined) throw new Error('no model');
    expect(otherFetchAllowed(m, 0.2)).toBe(true);
    expect(otherFetchAllowed(m, 0.5)).toBe(false);
  });

  it('RATE-9: demand is the sum of each source expected requests per interval; stretch = demand / capacity', () => {
    // 26 councils on one hosting host (issue 27), 16 requests every 10 min each at 1 s: 0.69 req/s.
    const calm = hostModelsOf(Array.from({ length: 26 }, (_, i) => src(`c${i}`, 'hosting.example'))).get(
      'hosting.example',
    );
    expect(calm?.demand).toBeCloseTo((26 * 16) / 600);
    expect(calm?.stretch).toBe(1);
    // At 3 s per request (RATE-2) the same host needs 2.08× its pace.
    const slow = hostModelsOf(
      Array.from({ length: 26 }, (_, i) => src(`c${i}`, 'hosting.example', { requestIntervalSeconds: 3 })),
    ).get('hosting.example');
    expect(slow?.utilisation).toBeCloseTo((26 * 16) / 600 / (1 / 3));
    expect(slow?.stretch).toBeCloseTo(slow?.utilisation ?? 0);
    expect(slow && isSaturated(slow)).toBe(true);
  });

  it('RATE-4: one run per host while answers are quicker than the pace, two when the server is slow, never more', () => {
    const fast = hostModelsOf([src('a', 'h')], new Map([['h', { latencyMs: 300 }]])).get('h');
    // Two runs at 2.5 s answers use 0.8 of the 1 request/s pace.
    const slow = hostModelsOf([src('a', 'h')], new Map([['h', { latencyMs: 2500 }]])).get('h');
    const learnt = hostModelsOf([src('a', 'h', { secondsPerRequest: 9 })]).get('h');
    expect([fast?.runLimit, slow?.runLimit, learnt?.runLimit]).toEqual([1, 2, 2]);
    expect([fast?.capacity, slow?.capacity]).toEqual([1, 0.8]);
  });

  it('RATE-8: a host paused by Retry-After admits no run until then', () => {
    const until = NOW_MS + 3_600_000;
    const hosts = hostModelsOf(
      [src('a', 'h.example')],
      new Map([['h.example', { pausedUntilMs: until }]]),
      NOW_MS,
    );
    expect(hosts.get('h.example')?.runLimit).toBe(0);
    const admission = admitRuns({ due: [due('a', 'h.example', 5)], running: [], hosts, settings });
    expect(admission.start).toEqual([]);
    expect(admission.waiting[0]?.reason).toMatch(/^host h\.example paused until .* \(RATE-8\): 1 run queued/);
    expect(admission.waiting[0]?.waitingFor).toEqual({
      kind: 'paused-host',
      host: 'h.example',
      until: new Date(until).toISOString(),
    });
  });
});

describe('a source as the host model sees it (SCH-1…SCH-3, RATE-9)', () => {
  it('its cadence interval now (unstretched), capped on a session day and the day before (SCH-2)', () => {
    const config = { sourceId: 'a', host: 'h.example', requestIntervalSeconds: 1, cadenceMinutes: {} };
    const quiet = { quietStreak: 9, sessionDays: [] as string[], lastSyncPeriod: 'weekdayDay' as const };
    // Wednesday 10:00, nine quiet syncs: 10 → 20 → 40 → 80 min (SCH-3).
    expect(hostSourceInputOf(config, quiet, NOW, settings)).toMatchObject({
      intervalMinutes: 80,
      sessionDay: false,
    });
    for (const day of ['2026-12-02', '2026-12-03']) {
      expect(hostSourceInputOf(config, { ...quiet, sessionDays: [day] }, NOW, settings)).toMatchObject({
        intervalMinutes: 10,
        sessionDay: true,
      });
    }
    expect(
      hostSourceInputOf(config, { ...quiet, sessionDays: ['2026-12-04'] }, NOW, settings).sessionDay,
    ).toBe(false);
    // Never synced: the period's base and the documented default of requests.
    expect(hostSourceInputOf(config, undefined, NOW, settings)).toMatchObject({
      intervalMinutes: 10,
      expectedIncrementalRequests: DEFAULT_EXPECTED_REQUESTS.incremental,
    });
  });
});

describe('expected requests, learnt from the source own runs (RATE-9)', () => {
  it('a first run counts with the documented default; later the mean of the last runs of the same kind', () => {
    expect(expectedRequests(undefined, 'incremental')).toBe(DEFAULT_EXPECTED_REQUESTS.incremental);
    expect(expectedRequests(undefined, 'full')).toBe(DEFAULT_EXPECTED_REQUESTS.full);
    let state = initialScheduleState();
    const run = (kind: 'incremental' | 'full' | 'sliced', requests: number, start: string, end: string) => {
      state = applyRunOutcome(
        state,
        {
          kind,
          startedAt: iso(start),
          endedAt: iso(end),
          changed: false,
          complete: true,
          failed: false,
          failures: [],
          requests,
        },
        iso(end),
      );
    };
    run('incremental', 10, '2026-12-01 08:00', '2026-12-01 08:01');
    run('incremental', 20, '2026-12-01 09:00', '2026-12-01 09:01');
    run('full', 400, '2026-12-01 03:00', '2026-12-01 03:10');
    run('incremental', 30, '2026-12-01 10:00', '2026-12-01 10:01');
    run('incremental', 40, '2026-12-01 11:00', '2026-12-01 11:01');
    expect(expectedRequests(state, 'incremental')).toBe(30);
    // A sliced full sync learns from full ones (both are the full-sync kind).
    expect(expectedRequests(state, 'sliced')).toBe(400);
    expect(state.recentRuns?.at(-1)).toEqual({ kind: 'incremental', requests: 40, seconds: 60 });
  });
});

describe('admission per host (RATE-9, SCH-5, RATE-4)', () => {
  it('issue 27 loopback: all nine due, four slots — the three lone hosts start, the shared host runs one', () => {
    const hosts = hostModelsOf(LOOPBACK);
    // The due list in its worst order: every shared-host run more overdue than the lone ones.
    const list = [
      ...[1, 2, 3, 4, 5, 6].map((i) => due(`shared-${i}`, `http://127.0.0.1:${8000 + i}/oparl`, 60 - i)),
      due('lone-2', '127.0.0.2', 1),
      due('lone-3', '127.0.0.3', 1),
      due('lone-4', '127.0.0.4', 1),
    ];
    const admission = admitRuns({ due: list, running: [], hosts, settings });
    expect(admission.start.map((d) => d.sourceId).sort()).toEqual(['lone-2', 'lone-3', 'lone-4', 'shared-1']);
    expect(admission.queuedByHost.get('127.0.0.1')).toBe(5);
    const waiting = admission.waiting.find((w) => w.sourceId === 'shared-2');
    expect(waiting?.reason).toMatch(/^host 127\.0\.0\.1 busy: 5 runs queued/);
    expect(waiting?.ruleIds).toContain('RATE-9');
    // Today's allocation (SCH-5 alone) gives all four slots to the shared host.
    const today = planSyncSlots(
      list.map((d) => d.decision),
      0,
      0,
      settings,
    );
    expect(today.start.map((d) => d.sourceId)).toEqual(['shared-1', 'shared-2', 'shared-3', 'shared-4']);
  });

  it('no head-of-line blocking: whatever the order of the due list, the same runs start', () => {
    const hosts = hostModelsOf(LOOPBACK);
    const list = LOOPBACK.map((s, i) => due(s.sourceId, s.host, 10 + i));
    const started = (l: DueRun[]) =>
      admitRuns({ due: l, running: [], hosts, settings })
        .start.map((d) => d.sourceId)
        .sort();
    const expected = started(list);
    expect(expected.filter((id) => id.startsWith('lone'))).toHaveLength(3);
    expect(started([...list].reverse())).toEqual(expected);
    expect(started([...list.slice(4), ...list.slice(0, 4)])).toEqual(expected);
  });

  it('a freed slot goes to the most overdue source on a host with capacity', () => {
    const hosts = hostModelsOf([
      src('a', 'busy.example'),
      src('b', 'busy.example'),
      src('c', 'idle.example'),
      src('d', 'idle2.example'),
    ]);
    const admission = admitRuns({
      due: [due('b', 'busy.example', 90), due('c', 'idle.example', 5), due('d', 'idle2.example', 30)],
      running: [
        { sourceId: 'a', host: 'busy.example', kind: 'incremental' },
        { sourceId: 'x', host: 'x1', kind: 'incremental' },
        { sourceId: 'y', host: 'x2', kind: 'incremental' },
      ],
      hosts,
      settings,
    });
    // One slot free: b is the most overdue but its host is busy; d is the most overdue with capacity.
    expect(admission.start.map((d) => d.sourceId)).toEqual(['d']);
    expect(admission.waiting.find((w) => w.sourceId === 'c')?.reason).toBe('all 4 sync slots busy (SCH-5)');
    expect(admission.waiting.find((w) => w.sourceId === 'b')?.reason).toMatch(
      /^host busy\.example busy: 1 run queued/,
    );
  });

  it('RATE-4: never more than two runs on a host, even a slow one with free slots', () => {
    const sources = ['a', 'b', 'c', 'd'].map((id) => src(id, 'slow.example'));
    const hosts = hostModelsOf(sources, new Map([['slow.example', { latencyMs: 3000 }]]));
    const admission = admitRuns({
      due: sources.map((s, i) => due(s.sourceId, s.host, i)),
      running: [],
      hosts,
      settings,
    });
    expect(admission.start).toHaveLength(2);
    expect(admission.queuedByHost.get('slow.example')).toBe(2);
  });

  it('RATE-9: on one host a session-day run goes first; manual requests before both', () => {
    const hosts = hostModelsOf([src('a', 'h'), src('b', 'h'), src('c', 'h')]);
    const first = admitRuns({
      due: [due('a', 'h', 50), due('b', 'h', 5, { sessionDay: true }), due('c', 'h', 1)],
      running: [],
      hosts,
      settings,
    });
    expect(first.start.map((d) => d.sourceId)).toEqual(['b']);
    const manual = admitRuns({
      due: [
        due('a', 'h', 50),
        due('b', 'h', 5, { sessionDay: true }),
        { decision: syncDecision({ sourceId: 'c', trigger: 'manual', dueAt: NOW }), host: 'h' },
      ],
      running: [],
      hosts,
      settings,
    });
    expect(manual.start.map((d) => d.sourceId)).toEqual(['c']);
  });

  it('FULL-3: full syncs still use all slots but one and go oldest first, each on a host with room', () => {
    const hosts = hostModelsOf([
      src('f1', 'h1'),
      src('f2', 'h1'),
      src('f3', 'h3'),
      src('f4', 'h4'),
      src('f5', 'h5'),
    ]);
    const full = (id: string, host: string, last: string): DueRun => ({
      decision: syncDecision({ sourceId: id, kind: 'full', lastFullSyncAt: iso(last), dueAt: NOW }),
      host,
    });
    const admission = admitRuns({
      due: [
        full('f1', 'h1', '2026-11-01 03:00'),
        full('f2', 'h1', '2026-10-01 03:00'),
        full('f3', 'h3', '2026-11-20 03:00'),
        full('f4', 'h4', '2026-11-10 03:00'),
        full('f5', 'h5', '2026-11-25 03:00'),
      ],
      running: [],
      hosts,
      settings,
    });
    expect(admission.start.map((d) => d.sourceId)).toEqual(['f2', 'f4', 'f3']);
    expect(admission.waiting.find((w) => w.sourceId === 'f1')?.reason).toMatch(/^host h1 busy/);
    expect(admission.waiting.find((w) => w.sourceId === 'f5')?.reason).toMatch(/no full-sync slot free/);
  });

  it('FULL-3, SCH-5, RATE-9: in the window the slots kept for incrementals follow their demand, not a fixed one', () => {
    // 60 councils on hosts of their own at the weekday 10-minute cadence, 1.5 s a request (learnt): a run
    // of 16 requests takes 24 s and holds its slot until the next planner tick, 60 × 60 s / 600 s = 6.
    const lone = Array.from({ length: 60 }, (_, i) =>
      src(`l${i}`, `l${i}.example`, { secondsPerRequest: 1.5 }),
    );
    const fullHosts = [1, 2, 3].map((i) => src(`f${i}`, `f${i}.example`, { intervalMinutes: 60 }));
    const day = hostModelsOf([...lone, ...fullHosts]);
    const full = (id: string, daysAgo: number): DueRun => ({
      decision: syncDecision({
        sourceId: id,
        kind: 'full',
        incrementalDue: false,
        lastFullSyncAt: new Date(NOW_MS - daysAgo * 86_400_000).toISOString(),
        dueAt: NOW,
      }),
      host: `${id}.example`,
    });
    const dueNow = [
      full('f1', 3),
      full('f2', 2),
      full('f3', 1),
      due('l1', 'l1.example', 2),
      due('l2', 'l2.example', 1),
    ];
    const admission = admitRuns({ due: dueNow, running: [], hosts: day, settings });
    // Both incrementals on hosts with capacity start; one slot is left for full syncs, the oldest first.
    expect(admission.start.map((d) => d.sourceId).sort()).toEqual(['f1', 'l1', 'l2']);
    expect(fullSyncSlotsFor(day, settings)).toMatchObject({ full: 1, keptForIncrementals: 3 });
    expect(admission.waiting.find((w) => w.sourceId === 'f2')?.reason).toMatch(
      /no full-sync slot free \(1 of 4 in use by full syncs, 3 kept for incremental syncs by their demand\).*FULL-3/,
    );
    // At night 20 of them ask every hour: 20 × 60 s / 3600 s = 0.33 slots — FULL-3's one is kept, as published.
    const night = hostModelsOf([...lone.slice(0, 20).map((s) => ({ ...s, intervalMinutes: 60 }))]);
    expect(fullSyncSlotsFor(night, settings)).toMatchObject({ full: 3, keptForIncrementals: 1 });
    // Eight slots, too few for both the day's incrementals (≈ 6 × 1.25) and tonight's full syncs (3):
    // each gets its share — 6 and 2 — instead of the full syncs only the one they always keep.
    const eight = { maxConcurrentSyncs: 8 };
    expect(fullSyncSlotsFor(day, eight)).toMatchObject({ full: 1, keptForIncrementals: 7 });
    expect(fullSyncSlotsFor(day, eight, 3)).toMatchObject({ full: 2, keptForIncrementals: 6 });
    // However busy the day, full syncs keep one slot (the safety net, FULL-1).
    const busy = hostModelsOf(lone.map((s) => ({ ...s, intervalMinutes: 1 })));
    expect(fullSyncSlotsFor(busy, settings).full).toBe(1);
  });
});

describe('fair share on a saturated host (RATE-9)', () => {
  /** `stretchDecision` at NOW after a last sync, a source with the published cadence (SCH-1). */
  const stretchAfter = (decision: SourceDecision, state: TurnState, model: HostModel | undefined) =>
    stretchDecision(decision, { state, model, now: NOW, own: { config: { cadenceMinutes: {} }, settings } });
  const saturated = hostModelsOf(
    Array.from({ length: 30 }, (_, i) =>
      src(`s${i}`, 'hosting.example', { expectedIncrementalRequests: 46 }),
    ),
  ).get('hosting.example');

  it('the host needs 2.3 requests/s of 1: every interval × 2.3, said in the reason', () => {
    expect(saturated?.stretch).toBeCloseTo(2.3);
    const decision = syncDecision({
      sourceId: 's1',
      dueAt: iso('2026-12-02 09:55'),
      cadenceAt: iso('2026-12-02 09:55'),
    });
    // Last sync ended 09:45, cadence 10 min → due 09:55; stretched: 09:45 + 23 min = 10:08 — due from
    // STRETCH_DUE_SHARE of it (10 min × 2.3 × 0.8 = 18.4 min: 10:03:24), then in the lane's fair order.
    const stretched = stretchAfter(decision, { lastSyncEndedAt: iso('2026-12-02 09:45') }, saturated);
    expect(stretched.action).toBe('wait');
    expect(Date.parse(stretched.dueAt ?? '')).toBeCloseTo(
      Date.parse(iso('2026-12-02 09:45')) + 10 * 60_000 * 2.3 * STRETCH_DUE_SHARE,
      -1,
    );
    expect(stretched.reason).toMatch(
      /^host hosting\.example saturated: needs 2\.3 requests\/s of 1; intervals × 2\.3 \(RATE-9\)/,
    );
    expect(stretched.ruleIds).toContain('RATE-9');
  });

  it('the same factor for every source, session days included; due once the stretched interval has passed', () => {
    const sessionCapped = stretchAfter(
      syncDecision({ sourceId: 's2', dueAt: iso('2026-12-02 09:40'), cadenceAt: iso('2026-12-02 09:40') }),
      { lastSyncEndedAt: iso('2026-12-02 09:30'), sessionDays: ['2026-12-02'] },
      saturated,
    );
    // 10 min session-day cap × 2.3 (× 0.8, STRETCH_DUE_SHARE) after 09:30 → 09:48:24, before now: it runs.
    expect(sessionCapped.action).toBe('sync');
    expect(sessionCapped.reason).toMatch(/intervals × 2\.3/);
  });

  it('a source still waiting for its cadence waits for the stretched time, with the decision of the real planner', () => {
    const state = afterSync('2026-12-02 09:55', 0, 'weekdayDay');
    const decision = decideSource(source({ sourceId: 's3' }), state, NOW, { settings });
    expect(decision).toMatchObject({ action: 'wait', cadenceAt: iso('2026-12-02 10:05') });
    const stretched = stretchAfter(decision, state, saturated);
    // 09:55 + 10 min × 2.3 × 0.8 (STRETCH_DUE_SHARE) = 10:13:24.
    expect(stretched.action).toBe('wait');
    expect(Date.parse(stretched.dueAt ?? '')).toBeCloseTo(Date.parse(iso('2026-12-02 10:13')) + 24_000, -1);
    expect(stretched.reason).toMatch(
      /saturated: needs 2\.3 requests\/s of 1; intervals × 2\.3 \(RATE-9\): next incremental at/,
    );
  });

  it('a host with capacity stretches nothing; manual requests are never stretched (SCH-7)', () => {
    const calm = hostModelsOf([src('a', 'calm.example')]).get('calm.example');
    const d = syncDecision({
      sourceId: 'a',
      dueAt: iso('2026-12-02 09:55'),
      cadenceAt: iso('2026-12-02 09:55'),
    });
    expect(stretchAfter(d, { lastSyncEndedAt: iso('2026-12-02 09:45') }, calm)).toBe(d);
    const manual = syncDecision({ sourceId: 's1', trigger: 'manual', dueAt: NOW });
    expect(stretchAfter(manual, { lastSyncEndedAt: iso('2026-12-02 09:59') }, saturated).action).toBe('sync');
  });
});

describe('full syncs per host: the window budget (FULL-3, RATE-9)', () => {
  it('25 full syncs of 225 pages on one host: those that fit tonight, the rest next night oldest first', () => {
    // A hosting host at 3 s per request (RATE-2), night cadence 60 min.
    const sources = Array.from({ length: 25 }, (_, i) =>
      src(`f${String(i).padStart(2, '0')}`, 'hosting.example', {
        intervalMinutes: 60,
        requestIntervalSeconds: 3,
      }),
    );
    const hosts = hostModelsOf(sources);
    const night = iso('2026-12-02 03:00');
    const nowMs = Date.parse(night);
    const windowEnd = nowMs + 5 * 3_600_000;
    const candidates = sources.map((s, i) => ({
      // f24 has the oldest full sync.
      decision: syncDecision({
        sourceId: s.sourceId,
        kind: 'full' as const,
        lastFullSyncAt: new Date(nowMs - (i + 1) * 86_400_000).toISOString(),
      }),
      host: s.host,
      expectedRequests: 225,
    }));
    const plans = planHostFullSyncs(candidates, { hosts, nowMs, defaultWindowEndMs: windowEnd });
    const plan = plans.byHost.get('hosting.example');
    const model = hosts.get('hosting.example');
    // Budget: 5 h × (1/3 − 25 × 16 / 3600) requests/s = 4000 requests: 17 of the 25 fit.
    expect(plan?.budget).toBeCloseTo(5 * 3600 * (1 / 3 - (25 * 16) / 3600));
    const fit = Math.floor((plan?.budget ?? 0) / 225);
    expect(fit).toBe(17);
    expect(plan?.tonight).toHaveLength(fit);
    expect(plan?.tonight[0]).toBe('f24');
    expect(plan?.nextNight[0]).toBe(`f${String(24 - fit).padStart(2, '0')}`);
    expect(plans.behind.get('f00')).toMatch(/^full sync behind: host capacity/);
    expect(model?.stretch).toBe(1);
    // Fed to admission: a behind full sync waits, or runs as the incremental its cadence has due.
    const admission = admitRuns({
      due: [
        { decision: { ...candidates[0]!.decision, incrementalDue: true }, host: 'hosting.example' },
        { decision: candidates[1]!.decision, host: 'other.example' },
      ],
      running: [],
      hosts,
      settings,
      fullSyncBehind: plans.behind,
    });
    expect(admission.start[0]?.kind).toBe('incremental');
    expect(admission.start[0]?.reason).toMatch(
      /full sync behind: host capacity.*incremental by cadence meanwhile/,
    );
    expect(admission.waiting[0]?.reason).toMatch(/^full sync behind: host capacity/);
  });

  it('a saturated host has no spare budget: its oldest full sync gets its chance once, the next waits while it runs', () => {
    const sources = Array.from({ length: 30 }, (_, i) =>
      src(`s${i}`, 'busy.example', { expectedIncrementalRequests: 46 }),
    );
    const hosts = hostModelsOf(sources);
    expect(hosts.get('busy.example')?.stretch).toBeGreaterThan(1);
    const night = Date.parse(iso('2026-12-02 03:00'));
    const candidate = (id: string, daysAgo: number) => ({
      decision: syncDecision({
        sourceId: id,
        kind: 'full' as const,
        lastFullSyncAt: new Date(night - daysAgo * 86_400_000).toISOString(),
      }),
      host: 'busy.example',
      expectedRequests: 225,
    });
    const idle = planHostFullSyncs([candidate('s1', 9), candidate('s2', 3)], {
      hosts,
      nowMs: night,
      defaultWindowEndMs: night + 5 * 3_600_000,
    });
    expect(idle.byHost.get('busy.example')).toMatchObject({ budget: 0, tonight: ['s1'], nextNight: ['s2'] });
    const whileRunning = planHostFullSyncs([candidate('s2', 3)], {
      hosts,
      nowMs: night + 600_000,
      defaultWindowEndMs: night + 5 * 3_600_000,
      runningRequests: new Map([['busy.example', 225]]),
    });
    expect(whileRunning.byHost.get('busy.example')?.tonight).toEqual([]);
    expect(whileRunning.behind.get('s2')).toMatch(/^full sync behind: host capacity/);
  });
});

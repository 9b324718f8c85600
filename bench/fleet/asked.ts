import {
  applyRunOutcome,
  DEFAULT_LEASE_MINUTES,
  decideSource,
  isoOfMs,
  markSyncStarted,
  msOf,
  type RunOutcome,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceScheduleState,
} from '../../shared/schedule';
import { type FleetSource, runPlanOf } from './model';

/**
 * What a source's own cadence asks for (RATE-9's yardstick): the syncs it would get over the measured
 * span on a host of its own — the same decisions (`decideSource`: SCH-1…SCH-4, SCH-2 session days,
 * SCH-3 quiet doubling, FULL windows), the same start state and change instants, decided at the
 * planner's ticks, each run taking its requests at the host's pace (one request per interval; nobody
 * else on the host, so no queue). RATE-9 promises that on a saturated host every source is slowed by the
 * same factor, not that every source gets the same number of syncs: its sources ask for different
 * numbers (session days differ — SCH-2 caps a session day *and the day before* at 10 min, so Monday's
 * sessions cap Sunday too; changes differ, and SCH-3 doubles the quiet ones). The fair share is then
 * syncs achieved ÷ syncs asked, equal across the host's sources.
 */
export interface AskedInput {
  fleet: FleetSource;
  config: ScheduleSourceConfig;
  /** The state the simulation started the source with. */
  initialState: SourceScheduleState;
  /** Its changes (ascending instants, ms): a sync at or after one sees it. */
  changes: readonly number[];
  /** Its host's interval between requests (RATE-1, the largest interval on the host). */
  hostIntervalMs: number;
}

export interface AskedSpan {
  startMs: number;
  /** Syncs started after this instant count (the measured span; the simulation's `measuring`). */
  measureFromMs: number;
  endMs: number;
  tickMs: number;
  settings: ScheduleSettings;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** What a source's cadence asks for over the measured span. */
export interface AskedSyncs {
  /** Syncs (any kind) started in the measured span. */
  total: number;
  /** The same per hour of the span (index: whole hours since `measureFromMs`). */
  byHour: number[];
}

/** The syncs (any kind) `source`'s own cadence starts in the measured span, alone on its host. */
export function askedSyncs(source: AskedInput, span: AskedSpan): AskedSyncs {
  const byHour: number[] = new Array(Math.ceil((span.endMs - span.measureFromMs) / HOUR) + 1).fill(0);
  // The simulation decides at tick instants: a due instant waits for the tick at or after it.
  const tickAtOrAfter = (ms: number) =>
    span.startMs + Math.max(0, Math.ceil((ms - span.startMs) / span.tickMs)) * span.tickMs;
  let state = source.initialState;
  let changePtr = 0;
  let syncs = 0;
  let t = span.startMs;
  while (t <= span.endMs) {
    const nowIso = isoOfMs(t);
    const decision = decideSource(source.config, state, nowIso, { settings: span.settings });
    if (decision.action !== 'sync') {
      const dueMs = decision.dueAt === undefined ? Number.NaN : msOf(decision.dueAt);
      t = tickAtOrAfter(dueMs > t ? dueMs : t + (decision.action === 'skip' ? HOUR : MINUTE));
      continue;
    }
    const kind = decision.kind ?? 'incremental';
    state = markSyncStarted(state, decision, nowIso, DEFAULT_LEASE_MINUTES);
    let changed = false;
    while (changePtr < source.changes.length && (source.changes[changePtr] as number) <= t) {
      changed = true;
      changePtr += 1;
    }
    const requests = runPlanOf(source.fleet, kind, changed).requests;
    // Alone on its host: a request per interval (the bench's latencies stay under the interval on
    // average; a slower answer would only lengthen every source's runs alike).
    const endMs = t + requests * source.hostIntervalMs;
    const endedIso = isoOfMs(endMs);
    state = applyRunOutcome(
      state,
      {
        kind,
        startedAt: nowIso,
        endedAt: endedIso,
        changed,
        complete: true,
        failed: false,
        failures: [],
        sessionDays: state.sessionDays,
        requests,
      } satisfies RunOutcome,
      endedIso,
      { config: source.config, settings: span.settings },
    );
    if (t > span.measureFromMs) {
      syncs += 1;
      const b = hourIndexOf(t, span.measureFromMs);
      byHour[b] = (byHour[b] ?? 0) + 1;
    }
    t = tickAtOrAfter(endMs);
  }
  return { total: syncs, byHour };
}

/** Whole hours since the measured span began. */
export function hourIndexOf(ms: number, measureFromMs: number): number {
  return Math.floor((ms - measureFromMs) / HOUR);
}

/**
 * RATE-9 at each moment: a saturated host's factor varies over the week (weekday days, nights, the
 * weekend; how many of its councils are session-capped that day), and the rule slows every source by
 * the factor *in force*. So a source's fair count is what it asks in each hour × the host's achieved ÷
 * asked in that hour, summed; its figure is achieved ÷ that (1 = served exactly at the host's factor).
 * The hours' factors are the host's own (all its sources), so the fair counts add up to what it served.
 */
export function sharesAtHostFactor(
  achievedByHour: readonly (readonly number[])[],
  askedByHour: readonly (readonly number[])[],
): number[] {
  return sharesAtFactorOf(achievedByHour, askedByHour, hostFactorByHour(achievedByHour, askedByHour));
}

/** Each source's syncs ÷ its fair count at `factor` (per hour: the host's factor in force then). */
function sharesAtFactorOf(
  achievedByHour: readonly (readonly number[])[],
  askedByHour: readonly (readonly number[])[],
  factor: readonly number[],
): number[] {
  return achievedByHour.map((achieved, i) => {
    const fair = fairByHour(askedByHour[i] ?? [], factor).reduce((sum, x) => sum + x, 0);
    const total = achieved.reduce((sum, x) => sum + x, 0);
    return fair === 0 ? 0 : total / fair;
  });
}

/**
 * The same at the factor of each SCH-1 period block (00–07, 07–19, 19–24 of each local day: where the
 * rules change what a source asks — periods, SCH-2's caps from midnight): the host's achieved ÷ asked
 * over the block, for every hour of it. The measured span starts at local midnight (no DST in the week).
 */
export function sharesAtBlockFactor(
  achievedByHour: readonly (readonly number[])[],
  askedByHour: readonly (readonly number[])[],
): number[] {
  const blockOf = (b: number) => {
    const hour = b % 24;
    return Math.floor(b / 24) * 3 + (hour < 7 ? 0 : hour < 19 ? 1 : 2);
  };
  const sum = (rows: readonly (readonly number[])[]) => {
    const out = new Map<number, number>();
    for (const row of rows) {
      row.forEach((x, b) => {
        out.set(blockOf(b), (out.get(blockOf(b)) ?? 0) + x);
      });
    }
    return out;
  };
  const achieved = sum(achievedByHour);
  const asked = sum(askedByHour);
  const hours = Math.max(0, ...askedByHour.map((a) => a.length));
  const factor: number[] = [];
  for (let b = 0; b < hours; b += 1) {
    const a = asked.get(blockOf(b)) ?? 0;
    factor.push(a === 0 ? 0 : (achieved.get(blockOf(b)) ?? 0) / a);
  }
  return sharesAtFactorOf(achievedByHour, askedByHour, factor);
}

/** The host's factor in force per hour: its sources' syncs achieved ÷ asked in that hour (0: none asked). */
export function hostFactorByHour(
  achievedByHour: readonly (readonly number[])[],
  askedByHour: readonly (readonly number[])[],
): number[] {
  const hours = Math.max(0, ...askedByHour.map((a) => a.length));
  const factor: number[] = [];
  for (let b = 0; b < hours; b += 1) {
    let achieved = 0;
    let asked = 0;
    for (const a of achievedByHour) achieved += a[b] ?? 0;
    for (const a of askedByHour) asked += a[b] ?? 0;
    factor.push(asked === 0 ? 0 : achieved / asked);
  }
  return factor;
}

/** A source's fair count per hour: what it asks in the hour × the host's factor then. */
export function fairByHour(askedByHour: readonly number[], factor: readonly number[]): number[] {
  return factor.map((f, b) => (askedByHour[b] ?? 0) * f);
}

import {
  cadenceAtMsOf,
  factorInForceAt,
  factorInForceSinceMs,
  type HostModel,
  hostKeyOf,
  ownTurnsDueMs,
  type TurnState,
  turnBeganMs,
} from '../hosts';
import type { ScheduleSettings, ScheduleSourceConfig, SourceDecision } from '../schedule';

/**
 * RATE-9's promise as a paging signal, pure (state + now → figure). A saturated host is lawful: every
 * source on it runs at the host's one stretch factor — that is shown (dashboard, `status`, `hosts`), not
 * paged. What RATE-9 forbids is a source *starved*: due by its own cadence × its host's factor and still
 * not served long after. A source counts as starved when it has waited past that stretched due instant
 * by more than its whole stretched interval again and by at least `STARVED_MIN_OVERDUE_MINUTES` — twice
 * what the fair order promises. Not counted: a source waiting for its cadence or its stretched turn
 * (decision `wait`), a paused source (ERR-4/ERR-5, the SourcePausedTooLong alarm's), a source on a host
 * in a RATE-8 pause (the server asked us to wait), a manual request (SCH-7: not a cadence), a source never
 * synced (no turn to count from) and a running one (the planner decides only due, unleased items).
 *
 * The factor in force: a host's factor changes by the clock (SCH-1's periods, SCH-2's caps from midnight,
 * the full-sync window's share — `factorInForceSinceMs`), and a source measured at the new factor across
 * the whole wait looked starved the moment the factor fell, though it had waited its turn at the old one
 * in the host's fair order (and `stretchDecision` looks at it again at that instant). So the overdue time
 * is counted from the later of its stretched due instant and the instant the factor in force began: after
 * a fall, the host has the source's stretched interval again (≥ 30 min) to work its backlog off before a
 * page — and a source still not served then is starved at the factor in force. Counted across the
 * change instead, Saturday 00:00 alone (the Friday night's factor 2.8 → the weekend's 1) paged for up
 * to 39 sources of the two hosting centres served within 55 minutes (fleet bench, a week at 1,000 sources).
 */

/**
 * The margin beyond the stretched due instant, in stretched intervals: a source starts being starved
 * after twice its stretched interval. The lanes serve a saturated host's due sources by turns waited,
 * from `STRETCH_DUE_SHARE` (0.8) of the interval on; a fair queue ends well inside one more interval
 * (fleet bench: fairness 1.25–1.28 at 1,000 sources).
 */
export const STARVED_AFTER_STRETCHED_INTERVALS = 1;
/**
 * And at least this long past its stretched due instant: a 10-minute cadence at 07:00, when every source
 * of the fleet becomes due at once (SCH-4), waits a few minutes for a slot without anything broken.
 */
export const STARVED_MIN_OVERDUE_MINUTES = 30;

const MINUTE_MS = 60_000;

/** One due source as the tick decided it: its config's cadence, its state and this tick's decision. */
export interface StarvationCandidate {
  sourceId: string;
  /** Host name or URL (keyed with RATE-2's `hostKey`). */
  host: string;
  config: Pick<ScheduleSourceConfig, 'cadenceMinutes'>;
  state: TurnState;
  decision: Pick<SourceDecision, 'action' | 'trigger' | 'cadenceAt' | 'kind'>;
}

export interface StarvedSource {
  sourceId: string;
  host: string;
  /** The host's factor in force (1: the host has capacity). */
  stretch: number;
  /** Minutes past its stretched due instant. */
  overdueMinutes: number;
  /** Its stretched interval: from its last turn's start to its stretched due instant, minutes. */
  stretchedIntervalMinutes: number;
}

export interface Starvation {
  /** Starved sources, most overdue first. */
  starved: StarvedSource[];
  /** Of the due sources counted, the most minutes past a stretched due instant (0: none past it). */
  longestOverdueMinutes: number;
}

export function starvationOf(
  candidates: readonly StarvationCandidate[],
  hostOf: (hostKey: string) => Pick<HostModel, 'stretch' | 'pausedUntil' | 'fullSyncShare'> | undefined,
  now: Date,
  settings: ScheduleSettings,
): Starvation {
  const nowMs = now.getTime();
  const inForceSinceMs = factorInForceSinceMs(nowMs, settings);
  const starved: StarvedSource[] = [];
  let longestOverdueMs = 0;
  for (const c of candidates) {
    if (c.decision.action !== 'sync' || c.decision.trigger === 'manual') continue;
    const began = turnBeganMs(c.state);
    if (began === undefined) continue;
    const key = hostKeyOf(c.host);
    // The factor in force now, as the decisions count it: a full-sync share only while its window is open.
    const model = factorInForceAt(hostOf(key), nowMs, settings);
    if (model?.pausedUntil !== undefined && Date.parse(model.pausedUntil) > nowMs) continue;
    const stretch = model?.stretch ?? 1;
    const own = { config: c.config, settings, stretch };
    const cadenceMs = cadenceAtMsOf(c.decision, c.state, own, nowMs);
    // The stretched due instant is never before the cadence's own: a source that has not waited the
    // floor past its cadence cannot be starved, and the walk over its turns is skipped (most of a tick).
    if (nowMs - cadenceMs <= 0) continue;
    const dueMs = stretch <= 1 ? cadenceMs : ownTurnsDueMs(c.state, cadenceMs, own, stretch);
    // Counted only since the factor in force began: what the source waited before was waited at another
    // factor, in the host's fair order then (see above, "the factor in force").
    const overdueMs = nowMs - Math.max(dueMs, inForceSinceMs);
    if (overdueMs <= 0) continue;
    longestOverdueMs = Math.max(longestOverdueMs, overdueMs);
    const intervalMs = Math.max(0, dueMs - began);
    const marginMs = Math.max(
      STARVED_MIN_OVERDUE_MINUTES * MINUTE_MS,
      STARVED_AFTER_STRETCHED_INTERVALS * intervalMs,
    );
    if (overdueMs <= marginMs) continue;
    starved.push({
      sourceId: c.sourceId,
      host: key,
      stretch: round(stretch),
      overdueMinutes: round(overdueMs / MINUTE_MS),
      stretchedIntervalMinutes: round(intervalMs / MINUTE_MS),
    });
  }
  starved.sort((a, b) => b.overdueMinutes - a.overdueMinutes || a.sourceId.localeCompare(b.sourceId));
  return { starved, longestOverdueMinutes: round(longestOverdueMs / MINUTE_MS) };
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

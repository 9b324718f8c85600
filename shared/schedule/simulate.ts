import type { DateTime } from 'luxon';
import { decideSource } from './decide';
import { ScheduleError } from './errors';
import { resolveScheduleSettings } from './settings';
import { applyRunOutcome, initialScheduleState, markSyncStarted } from './state';
import { isLocalDate, localDate, toBerlin, toIso } from './time';
import type { ScheduleSettings, ScheduleSourceConfig, SyncKind } from './types';

export interface SimulateCadenceOptions {
  /** Start, ISO; without offset it is local Europe/Berlin time (e.g. '2026-11-30T00:00'). */
  from: string;
  /** Calendar days to simulate, 1–366 (a DST day counts as one day). */
  days: number;
  /** SCH-2: local dates with a meeting. */
  sessionDays?: string[];
  /** Instants at which the source changes; the next sync after one sees a change (SCH-3). */
  changeAt?: string[];
  /** How long each sync takes (SCH-4: the interval counts from its end). Default 0. */
  syncSeconds?: number;
  settings?: Partial<ScheduleSettings>;
  /** The source's cadence settings (slower per period, full-sync window …). */
  source?: Partial<Omit<ScheduleSourceConfig, 'sourceId' | 'active'>>;
  /** Also run the scheduled full syncs (default false: SCH-6 counts incremental syncs). */
  fullSyncs?: boolean;
}

export interface SimulatedRun {
  at: string;
  kind: SyncKind;
  reason: string;
}

export interface CadenceSimulation {
  syncs: number;
  /** Syncs per local date. */
  byDay: Record<string, number>;
  /** Start of every sync, ISO in Europe/Berlin with offset. */
  times: string[];
  runs: SimulatedRun[];
}

const MAX_DAYS = 366;

/**
 * Runs the real decision code (`decideSource` → `markSyncStarted` → `applyRunOutcome`) over simulated
 * time, one source, with a fake clock — the basis of `ingestor simulate cadence` and of the SCH-6
 * check figure. Time jumps from decision to decision; nothing sleeps.
 */
export function simulateCadence(options: SimulateCadenceOptions): CadenceSimulation {
  const settings = resolveScheduleSettings(options.settings);
  const from = toBerlin(options.from, 'from');
  if (!Number.isInteger(options.days) || options.days < 1 || options.days > MAX_DAYS) {
    throw new ScheduleError(
      'SCHEDULE_INVALID_OPTIONS',
      `days must be a whole number 1–${MAX_DAYS}, got ${options.days}`,
    );
  }
  const syncSeconds = options.syncSeconds ?? 0;
  if (!Number.isFinite(syncSeconds) || syncSeconds < 0) {
    throw new ScheduleError('SCHEDULE_INVALID_OPTIONS', `syncSeconds must be ≥ 0, got ${syncSeconds}`);
  }
  const sessionDays = options.sessionDays ?? [];
  for (const day of sessionDays) {
    if (!isLocalDate(day)) {
      throw new ScheduleError('SCHEDULE_INVALID_OPTIONS', `session day must be YYYY-MM-DD, got "${day}"`);
    }
  }
  const changes = (options.changeAt ?? [])
    .map((at) => toBerlin(at, 'changeAt').toMillis())
    .sort((a, b) => a - b);
  const config: ScheduleSourceConfig = {
    sourceId: 'simulated',
    active: true,
    cadenceMinutes: {},
    fullSyncMinDays: 0,
    fullSyncSliced: false,
    ...options.source,
  };

  const end = from.plus({ days: options.days });
  let state = initialScheduleState({ sessionDays: [...sessionDays] });
  let now: DateTime = from;
  let previousStartMs = Number.NEGATIVE_INFINITY;
  const runs: SimulatedRun[] = [];
  const byDay: Record<string, number> = {};
  // Generous bound: a sync every minute for the whole span, plus decisions in between.
  const maxSteps = options.days * 24 * 60 * 4 + 100;

  for (let step = 0; now.toMillis() < end.toMillis(); step += 1) {
    if (step > maxSteps) {
      throw new ScheduleError('SCHEDULE_SIMULATION_STUCK', `simulation did not advance past ${toIso(now)}`);
    }
    const decision = decideSource(config, state, now, {
      settings,
      scheduledFullSyncs: options.fullSyncs ?? false,
    });
    if (decision.action !== 'sync' || decision.kind === undefined) {
      const next = decision.dueAt === undefined ? undefined : toBerlin(decision.dueAt);
      if (next === undefined || next.toMillis() <= now.toMillis()) {
        throw new ScheduleError(
          'SCHEDULE_SIMULATION_STUCK',
          `decision at ${toIso(now)} does not advance: ${decision.action} — ${decision.reason}`,
        );
      }
      now = next;
      continue;
    }
    const startedAt = now;
    const endedAt = startedAt.plus({ seconds: syncSeconds });
    const startMs = startedAt.toMillis();
    const changed = changes.some((changeMs) => changeMs > previousStartMs && changeMs <= startMs);
    previousStartMs = startMs;

    const at = toIso(startedAt);
    runs.push({ at, kind: decision.kind, reason: decision.reason });
    const day = localDate(startedAt);
    byDay[day] = (byDay[day] ?? 0) + 1;

    state = markSyncStarted(state, decision, startedAt);
    state = applyRunOutcome(
      state,
      {
        kind: decision.kind,
        startedAt: at,
        endedAt: toIso(endedAt),
        changed,
        complete: true,
        failed: false,
        failures: [],
      },
      endedAt,
    );
    now = endedAt;
  }
  return { syncs: runs.length, byDay, times: runs.map((run) => run.at), runs };
}

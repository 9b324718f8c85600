import type { DateTime } from 'luxon';
import { FULL_SYNC_DEFAULT_WINDOW_HOURS } from '../../../shared/schedule/constants';
import type {
  Instant,
  ScheduleSettings,
  ScheduleSourceConfig,
  SourceScheduleState,
  SyncKind,
} from '../../../shared/schedule/types';
import {
  atLocalTime,
  calendarDaysBetween,
  formatForReason,
  localDate,
  minutesOfDay,
  remember,
  startOfLocalDate,
  toBerlin,
  toIso,
} from './time';

type FullSyncConfig = Pick<ScheduleSourceConfig, 'fullSyncWindow' | 'fullSyncMinDays' | 'fullSyncSliced'>;
type FullSyncState = Pick<
  SourceScheduleState,
  | 'fullSyncLastWindowId'
  | 'fullSyncLastCompleteWindowId'
  | 'fullSyncLastCompleteStartedAt'
  | 'fullSyncLastCompletedAt'
  | 'incrementalOnlyUntil'
>;

/** One opening of a source's full-sync window. */
export interface FullSyncWindow {
  /** FULL-2: the window's identity — its start instant as ISO — stored once a full sync starts in it. */
  id: string;
  start: string;
  end: string;
  /** FULL-4: an own window limits start and end; the default one only the start (FULL-1). */
  own: boolean;
  /** "own window 22:00–04:00" / "default window 03:00–08:00". */
  label: string;
}

interface WindowTimes {
  start: DateTime;
  end: DateTime;
  own: boolean;
}

/** Window times per day, hour setting and own window: the same for most sources on a tick (issue 18). */
const WINDOWS = new Map<string, WindowTimes>();

function windowOn(day: DateTime, config: FullSyncConfig, settings: ScheduleSettings): WindowTimes {
  return remember(WINDOWS, `${day.toMillis()}|${windowKey(config, settings)}`, () =>
    computeWindowOn(day, config, settings),
  );
}

/** What a source's window depends on: the full-sync hour setting and its own window. */
function windowKey(config: FullSyncConfig, settings: ScheduleSettings): string {
  const own = config.fullSyncWindow;
  return `${settings.fullSyncHour}|${own === undefined ? '' : `${own.start}-${own.end}`}`;
}

function computeWindowOn(day: DateTime, config: FullSyncConfig, settings: ScheduleSettings): WindowTimes {
  if (config.fullSyncWindow !== undefined) {
    // FULL-4: an own window may cross midnight — an end at or before the start is on the next day.
    const from = minutesOfDay(config.fullSyncWindow.start);
    const to = minutesOfDay(config.fullSyncWindow.end);
    const endDay = to.total > from.total ? day : day.plus({ days: 1 });
    return {
      start: atLocalTime(day, from.hour, from.minute),
      end: atLocalTime(endDay, to.hour, to.minute),
      own: true,
    };
  }
  // FULL-1: from INGESTOR_FULL_SYNC_HOUR for 5 h, on the wall clock ("01:00, so until 06:00"); on the
  // two DST nights the window is an hour shorter or longer rather than ending at an odd hour.
  const endHour = settings.fullSyncHour + FULL_SYNC_DEFAULT_WINDOW_HOURS;
  return {
    start: atLocalTime(day, settings.fullSyncHour),
    end: endHour < 24 ? atLocalTime(day, endHour) : atLocalTime(day.plus({ days: 1 }), endHour - 24),
    own: false,
  };
}

function describe(times: WindowTimes): FullSyncWindow {
  return {
    id: toIso(times.start),
    start: toIso(times.start),
    end: toIso(times.end),
    own: times.own,
    label: `${times.own ? 'own' : 'default'} window ${times.start.toFormat('HH:mm')}–${times.end.toFormat('HH:mm')}`,
  };
}

/** The window open at an instant, or null: every source with the default window asks it for `now`. */
const OPEN_WINDOWS = new Map<string, WindowTimes | null>();

function windowTimesAt(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  at: DateTime,
): WindowTimes | undefined {
  const open = remember(
    OPEN_WINDOWS,
    `${at.toMillis()}|${windowKey(config, settings)}`,
    () => computeWindowTimesAt(config, settings, at) ?? null,
  );
  return open ?? undefined;
}

function computeWindowTimesAt(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  at: DateTime,
): WindowTimes | undefined {
  const today = at.startOf('day');
  // Yesterday's window may still be open after midnight.
  for (const day of [today.minus({ days: 1 }), today]) {
    const times = windowOn(day, config, settings);
    if (times.start.toMillis() <= at.toMillis() && at.toMillis() < times.end.toMillis()) return times;
  }
  return undefined;
}

function nextWindowTimes(config: FullSyncConfig, settings: ScheduleSettings, after: DateTime): WindowTimes {
  let day = after.startOf('day');
  for (;;) {
    const times = windowOn(day, config, settings);
    if (times.start.toMillis() > after.toMillis()) return times;
    day = day.plus({ days: 1 });
  }
}

/** FULL-1/FULL-4: the source's window open at `now` (own if configured, else the default), if any. */
export function fullSyncWindowAt(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  now: Instant,
): FullSyncWindow | undefined {
  const times = windowTimesAt(config, settings, toBerlin(now, 'now'));
  return times === undefined ? undefined : describe(times);
}

/** The next opening of the source's window strictly after `after`. */
export function nextFullSyncWindow(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  after: Instant,
): FullSyncWindow {
  return describe(nextWindowTimes(config, settings, toBerlin(after, 'after')));
}

/** Local date the minimum distance counts from: the date of the window the last complete run started in. */
function lastCompleteDate(state: FullSyncState): string | undefined {
  const reference =
    state.fullSyncLastCompleteWindowId ??
    state.fullSyncLastCompleteStartedAt ??
    state.fullSyncLastCompletedAt;
  return reference === undefined ? undefined : localDate(toBerlin(reference, 'last complete full sync'));
}

/**
 * FULL-4: minimum distance in days, counted in local calendar days between the windows — a run that
 * started at 03:40 yesterday does not block tonight's 03:00 window with a minimum of 1 day.
 */
function minDistance(
  config: FullSyncConfig,
  state: FullSyncState,
  candidateDate: string,
): { met: true } | { met: false; lastDate: string; earliestDate: string } {
  const lastDate = lastCompleteDate(state);
  if (config.fullSyncMinDays <= 0 || lastDate === undefined) return { met: true };
  if (calendarDaysBetween(lastDate, candidateDate) >= config.fullSyncMinDays) return { met: true };
  const earliestDate = localDate(startOfLocalDate(lastDate).plus({ days: config.fullSyncMinDays }));
  return { met: false, lastDate, earliestDate };
}

function incrementalOnly(state: FullSyncState, now: DateTime): DateTime | undefined {
  if (state.incrementalOnlyUntil === undefined) return undefined;
  const until = toBerlin(state.incrementalOnlyUntil, 'incrementalOnlyUntil');
  return until.toMillis() > now.toMillis() ? until : undefined;
}

/**
 * The first instant at or after `from` at which a scheduled full sync could start: inside a window not
 * yet used (FULL-2) whose date keeps the minimum distance (FULL-4).
 */
function nextEligibleStart(
  config: FullSyncConfig,
  state: FullSyncState,
  settings: ScheduleSettings,
  from: DateTime,
): DateTime {
  const open = windowTimesAt(config, settings, from);
  let times = open ?? nextWindowTimes(config, settings, from);
  // minDays ≤ 365 (config) bounds the walk; the extra days cover FULL-2 and a window crossing midnight.
  for (let step = 0; step < 400; step += 1) {
    const usable =
      toIso(times.start) !== state.fullSyncLastWindowId &&
      minDistance(config, state, localDate(times.start)).met;
    if (usable) return times === open ? from : times.start;
    times = nextWindowTimes(config, settings, times.start);
  }
  return times.start;
}

export type FullSyncVerdict =
  | {
      due: true;
      kind: 'full' | 'sliced';
      windowId: string;
      /** FULL-4/FULL-6: no page after this instant; absent = runs to the end (default window, FULL-1). */
      deadline?: string;
      reason: string;
      ruleIds: string[];
    }
  | { due: false; reason: string; ruleIds: string[]; nextPossibleAt: string };

/**
 * FULL-1, FULL-2, FULL-4, FULL-6, FULL-7: whether a scheduled full sync may start now. Slot limits
 * (FULL-3) and a running incremental (FULL-1 "follows right after") are the caller's concern.
 */
export function scheduledFullSync(
  config: FullSyncConfig,
  state: FullSyncState,
  now: Instant,
  settings: ScheduleSettings,
): FullSyncVerdict {
  const nowLocal = toBerlin(now, 'now');
  const blockedUntil = incrementalOnly(state, nowLocal);
  if (blockedUntil !== undefined) {
    const next = nextEligibleStart(config, state, settings, blockedUntil);
    return {
      due: false,
      reason: `full syncs run as incremental syncs until ${formatForReason(blockedUntil, nowLocal)} (the server did not honour the filter, FULL-7)`,
      ruleIds: ['FULL-7'],
      nextPossibleAt: toIso(next),
    };
  }
  const open = windowTimesAt(config, settings, nowLocal);
  if (open === undefined) {
    const next = nextEligibleStart(config, state, settings, nowLocal);
    const label = config.fullSyncWindow === undefined ? 'full-sync window' : 'own full-sync window';
    return {
      due: false,
      reason: `${label} closed (opens ${formatForReason(next, nowLocal)})`,
      ruleIds: [config.fullSyncWindow === undefined ? 'FULL-1' : 'FULL-4'],
      nextPossibleAt: toIso(next),
    };
  }
  const window = describe(open);
  if (state.fullSyncLastWindowId === window.id) {
    const next = nextEligibleStart(config, state, settings, open.end);
    return {
      due: false,
      reason: `full sync already started in this ${window.label} (once per window, FULL-2); next from ${formatForReason(next, nowLocal)}`,
      ruleIds: ['FULL-2'],
      nextPossibleAt: toIso(next),
    };
  }
  const distance = minDistance(config, state, localDate(open.start));
  if (!distance.met) {
    const next = nextEligibleStart(config, state, settings, open.end);
    return {
      due: false,
      reason: `minimum distance ${config.fullSyncMinDays} days since the last complete full sync (${distance.lastDate}) not reached (FULL-4); next from ${formatForReason(next, nowLocal)}`,
      ruleIds: ['FULL-4'],
      nextPossibleAt: toIso(next),
    };
  }
  const endText = formatForReason(open.end, nowLocal);
  if (config.fullSyncSliced) {
    return {
      due: true,
      kind: 'sliced',
      windowId: window.id,
      deadline: window.end,
      reason: `sliced full sync in the ${window.label}, ending with it at ${endText} (FULL-6)`,
      ruleIds: ['FULL-5', 'FULL-6', window.own ? 'FULL-4' : 'FULL-1'],
    };
  }
  if (window.own) {
    return {
      due: true,
      kind: 'full',
      windowId: window.id,
      deadline: window.end,
      reason: `full sync in the ${window.label}, no further page after ${endText} (FULL-4)`,
      ruleIds: ['FULL-4'],
    };
  }
  return {
    due: true,
    kind: 'full',
    windowId: window.id,
    reason: `full sync in the ${window.label} (the default window limits only the start, FULL-1)`,
    ruleIds: ['FULL-1'],
  };
}

export interface ManualFullSyncVerdict {
  /** What actually runs: FULL-8 falls back to an incremental sync when the full one may not run. */
  kind: SyncKind;
  windowId?: string;
  deadline?: string;
  reason: string;
  ruleIds: string[];
}

/**
 * FULL-8: a manual full sync keeps the own window and the minimum distance — otherwise only an
 * incremental sync runs. Without an own window it starts at once, also by day, and runs to the end;
 * sliced only inside the (default) window, ending with it (FULL-6). The once-per-window rule (FULL-2)
 * governs automatic retries, not an explicit request; a run inside a window still uses that window up.
 */
export function manualFullSync(
  config: FullSyncConfig,
  state: FullSyncState,
  now: Instant,
  settings: ScheduleSettings,
): ManualFullSyncVerdict {
  const nowLocal = toBerlin(now, 'now');
  const blockedUntil = incrementalOnly(state, nowLocal);
  if (blockedUntil !== undefined) {
    return {
      kind: 'incremental',
      reason: `manual full sync runs as an incremental sync until ${formatForReason(blockedUntil, nowLocal)} (filter not honoured, FULL-7)`,
      ruleIds: ['FULL-8', 'FULL-7'],
    };
  }
  const open = windowTimesAt(config, settings, nowLocal);
  if (config.fullSyncWindow !== undefined && open === undefined) {
    const next = nextWindowTimes(config, settings, nowLocal);
    return {
      kind: 'incremental',
      reason: `manual full sync: own window closed (opens ${formatForReason(next.start, nowLocal)}), incremental instead (FULL-8)`,
      ruleIds: ['FULL-8', 'FULL-4'],
    };
  }
  const distance = minDistance(config, state, localDate(open?.start ?? nowLocal));
  if (!distance.met) {
    return {
      kind: 'incremental',
      reason: `manual full sync: minimum distance ${config.fullSyncMinDays} days since ${distance.lastDate} not reached, incremental instead (FULL-8)`,
      ruleIds: ['FULL-8', 'FULL-4'],
    };
  }
  if (config.fullSyncSliced) {
    if (open === undefined) {
      return {
        kind: 'incremental',
        reason:
          'manual full sync: sliced mode runs only inside the full-sync window, incremental instead (FULL-6, FULL-8)',
        ruleIds: ['FULL-8', 'FULL-6'],
      };
    }
    const window = describe(open);
    return {
      kind: 'sliced',
      windowId: window.id,
      deadline: window.end,
      reason: `manual sliced full sync in the ${window.label}, ending with it at ${formatForReason(open.end, nowLocal)} (FULL-6, FULL-8)`,
      ruleIds: ['FULL-8', 'FULL-6', 'FULL-5'],
    };
  }
  if (open?.own) {
    const window = describe(open);
    return {
      kind: 'full',
      windowId: window.id,
      deadline: window.end,
      reason: `manual full sync in the ${window.label}, no further page after ${formatForReason(open.end, nowLocal)} (FULL-8, FULL-4)`,
      ruleIds: ['FULL-8', 'FULL-4'],
    };
  }
  const verdict: ManualFullSyncVerdict = {
    kind: 'full',
    reason: 'manual full sync: starts now and runs to the end (FULL-8)',
    ruleIds: ['FULL-8'],
  };
  if (open !== undefined) verdict.windowId = describe(open).id;
  return verdict;
}

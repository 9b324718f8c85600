import { atLocalMs, clockText, dayOfIndex, isoOfMs, type LocalDay, localDayAt } from './calendar';
import { FULL_SYNC_DEFAULT_WINDOW_HOURS } from './constants';
import { minutesOfDay, msOf, reasonTime, remember } from './time';
import type { Instant, ScheduleSettings, ScheduleSourceConfig, SourceScheduleState, SyncKind } from './types';

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
  startMs: number;
  endMs: number;
  own: boolean;
  /** `describe` of it, made once. */
  described?: FullSyncWindow;
}

/**
 * Window times per hour setting and own window, then per day: the same for most sources on a tick
 * (issue 18). Keyed by the day's number under the window's key, so a lookup builds no text (issue 27).
 */
const WINDOWS = new Map<string, Map<number, WindowTimes>>();

function windowOn(day: LocalDay, config: FullSyncConfig, settings: ScheduleSettings): WindowTimes {
  const own = config.fullSyncWindow;
  const key = own === undefined ? DEFAULT_WINDOW_KEYS[settings.fullSyncHour] : undefined;
  const days = remember(WINDOWS, key ?? windowKey(config, settings), () => new Map<number, WindowTimes>());
  return remember(days, day.index, () => computeWindowOn(day, config, settings));
}

/** `windowKey` of the default window for each full-sync hour, made once. */
const DEFAULT_WINDOW_KEYS: readonly string[] = Array.from({ length: 24 }, (_, hour) => String(hour));

/** What a source's window depends on: the full-sync hour setting and its own window. */
function windowKey(config: FullSyncConfig, settings: ScheduleSettings): string {
  const own = config.fullSyncWindow;
  return own === undefined
    ? String(settings.fullSyncHour)
    : `${settings.fullSyncHour}|${own.start}-${own.end}`;
}

function computeWindowOn(day: LocalDay, config: FullSyncConfig, settings: ScheduleSettings): WindowTimes {
  const nextDay = dayOfIndex(day.index + 1);
  if (config.fullSyncWindow !== undefined) {
    // FULL-4: an own window may cross midnight — an end at or before the start is on the next day.
    const from = minutesOfDay(config.fullSyncWindow.start);
    const to = minutesOfDay(config.fullSyncWindow.end);
    const endDay = to.total > from.total ? day : nextDay;
    return {
      startMs: atLocalMs(day, from.hour, from.minute),
      endMs: atLocalMs(endDay, to.hour, to.minute),
      own: true,
    };
  }
  // FULL-1: from INGESTOR_FULL_SYNC_HOUR for 5 h, on the wall clock ("01:00, so until 06:00"); on the
  // two DST nights the window is an hour shorter or longer rather than ending at an odd hour.
  const endHour = settings.fullSyncHour + FULL_SYNC_DEFAULT_WINDOW_HOURS;
  return {
    startMs: atLocalMs(day, settings.fullSyncHour),
    endMs: endHour < 24 ? atLocalMs(day, endHour) : atLocalMs(nextDay, endHour - 24),
    own: false,
  };
}

function describe(times: WindowTimes): FullSyncWindow {
  times.described ??= {
    id: isoOfMs(times.startMs),
    start: isoOfMs(times.startMs),
    end: isoOfMs(times.endMs),
    own: times.own,
    label: `${times.own ? 'own' : 'default'} window ${clockText(times.startMs)}–${clockText(times.endMs)}`,
  };
  // A copy: callers may keep and change what they get.
  return { ...times.described };
}

/** The window open at an instant, if any: yesterday's may still be open after midnight. */
function windowTimesAt(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  atMs: number,
): WindowTimes | undefined {
  const today = localDayAt(atMs);
  const yesterdays = windowOn(dayOfIndex(today.index - 1), config, settings);
  if (yesterdays.startMs <= atMs && atMs < yesterdays.endMs) return yesterdays;
  const todays = windowOn(today, config, settings);
  return todays.startMs <= atMs && atMs < todays.endMs ? todays : undefined;
}

function nextWindowTimes(config: FullSyncConfig, settings: ScheduleSettings, afterMs: number): WindowTimes {
  let day = localDayAt(afterMs);
  for (;;) {
    const times = windowOn(day, config, settings);
    if (times.startMs > afterMs) return times;
    day = dayOfIndex(day.index + 1);
  }
}

/** FULL-1/FULL-4: the source's window open at `now` (own if configured, else the default), if any. */
export function fullSyncWindowAt(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  now: Instant,
): FullSyncWindow | undefined {
  const times = windowTimesAt(config, settings, msOf(now, 'now'));
  return times === undefined ? undefined : describe(times);
}

/** The next opening of the source's window strictly after `after`. */
export function nextFullSyncWindow(
  config: FullSyncConfig,
  settings: ScheduleSettings,
  after: Instant,
): FullSyncWindow {
  return describe(nextWindowTimes(config, settings, msOf(after, 'after')));
}

/** Local date the minimum distance counts from: the date of the window the last complete run started in. */
function lastCompleteDay(state: FullSyncState): LocalDay | undefined {
  const reference =
    state.fullSyncLastCompleteWindowId ??
    state.fullSyncLastCompleteStartedAt ??
    state.fullSyncLastCompletedAt;
  return reference === undefined ? undefined : localDayAt(msOf(reference, 'last complete full sync'));
}

const DISTANCE_MET = { met: true } as const;

/**
 * FULL-4: minimum distance in days, counted in local calendar days between the windows — a run that
 * started at 03:40 yesterday does not block tonight's 03:00 window with a minimum of 1 day. Days are
 * counted on the calendar's day numbers (what `calendarDaysBetween` of their dates gives).
 */
function minDistance(
  config: FullSyncConfig,
  state: FullSyncState,
  candidate: LocalDay,
): { met: true } | { met: false; lastDate: string; earliestDate: string } {
  const last = lastCompleteDay(state);
  if (config.fullSyncMinDays <= 0 || last === undefined) return DISTANCE_MET;
  if (candidate.index - last.index >= config.fullSyncMinDays) return DISTANCE_MET;
  const earliestDate = dayOfIndex(last.index + config.fullSyncMinDays).date;
  return { met: false, lastDate: last.date, earliestDate };
}

function incrementalOnly(state: FullSyncState, nowMs: number): number | undefined {
  if (state.incrementalOnlyUntil === undefined) return undefined;
  const until = msOf(state.incrementalOnlyUntil, 'incrementalOnlyUntil');
  return until > nowMs ? until : undefined;
}

/**
 * The first instant at or after `from` at which a scheduled full sync could start: inside a window not
 * yet used (FULL-2) whose date keeps the minimum distance (FULL-4).
 */
function nextEligibleStart(
  config: FullSyncConfig,
  state: FullSyncState,
  settings: ScheduleSettings,
  fromMs: number,
): number {
  const open = windowTimesAt(config, settings, fromMs);
  let times = open ?? nextWindowTimes(config, settings, fromMs);
  // minDays ≤ 365 (config) bounds the walk; the extra days cover FULL-2 and a window crossing midnight.
  for (let step = 0; step < 400; step += 1) {
    const usable =
      isoOfMs(times.startMs) !== state.fullSyncLastWindowId &&
      minDistance(config, state, localDayAt(times.startMs)).met;
    if (usable) return times === open ? fromMs : times.startMs;
    times = nextWindowTimes(config, settings, times.startMs);
  }
  return times.startMs;
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
  return scheduledFullSyncMs(config, state, msOf(now, 'now'), settings);
}

/** `scheduledFullSync` with `now` in epoch milliseconds. */
export function scheduledFullSyncMs(
  config: FullSyncConfig,
  state: FullSyncState,
  nowMs: number,
  settings: ScheduleSettings,
): FullSyncVerdict {
  const blockedUntil = incrementalOnly(state, nowMs);
  if (blockedUntil !== undefined) {
    const next = nextEligibleStart(config, state, settings, blockedUntil);
    return {
      due: false,
      reason: `full syncs run as incremental syncs until ${reasonTime(blockedUntil, nowMs)} (the server did not honour the filter, FULL-7)`,
      ruleIds: ['FULL-7'],
      nextPossibleAt: isoOfMs(next),
    };
  }
  const open = windowTimesAt(config, settings, nowMs);
  if (open === undefined) {
    const next = nextEligibleStart(config, state, settings, nowMs);
    const label = config.fullSyncWindow === undefined ? 'full-sync window' : 'own full-sync window';
    return {
      due: false,
      reason: `${label} closed (opens ${reasonTime(next, nowMs)})`,
      ruleIds: [config.fullSyncWindow === undefined ? 'FULL-1' : 'FULL-4'],
      nextPossibleAt: isoOfMs(next),
    };
  }
  const window = describe(open);
  if (state.fullSyncLastWindowId === window.id) {
    const next = nextEligibleStart(config, state, settings, open.endMs);
    return {
      due: false,
      reason: `full sync already started in this ${window.label} (once per window, FULL-2); next from ${reasonTime(next, nowMs)}`,
      ruleIds: ['FULL-2'],
      nextPossibleAt: isoOfMs(next),
    };
  }
  const distance = minDistance(config, state, localDayAt(open.startMs));
  if (!distance.met) {
    const next = nextEligibleStart(config, state, settings, open.endMs);
    return {
      due: false,
      reason: `minimum distance ${config.fullSyncMinDays} days since the last complete full sync (${distance.lastDate}) not reached (FULL-4); next from ${reasonTime(next, nowMs)}`,
      ruleIds: ['FULL-4'],
      nextPossibleAt: isoOfMs(next),
    };
  }
  const endText = reasonTime(open.endMs, nowMs);
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
  return manualFullSyncMs(config, state, msOf(now, 'now'), settings);
}

/** `manualFullSync` with `now` in epoch milliseconds. */
export function manualFullSyncMs(
  config: FullSyncConfig,
  state: FullSyncState,
  nowMs: number,
  settings: ScheduleSettings,
): ManualFullSyncVerdict {
  const blockedUntil = incrementalOnly(state, nowMs);
  if (blockedUntil !== undefined) {
    return {
      kind: 'incremental',
      reason: `manual full sync runs as an incremental sync until ${reasonTime(blockedUntil, nowMs)} (filter not honoured, FULL-7)`,
      ruleIds: ['FULL-8', 'FULL-7'],
    };
  }
  const open = windowTimesAt(config, settings, nowMs);
  if (config.fullSyncWindow !== undefined && open === undefined) {
    const next = nextWindowTimes(config, settings, nowMs);
    return {
      kind: 'incremental',
      reason: `manual full sync: own window closed (opens ${reasonTime(next.startMs, nowMs)}), incremental instead (FULL-8)`,
      ruleIds: ['FULL-8', 'FULL-4'],
    };
  }
  const distance = minDistance(config, state, localDayAt(open?.startMs ?? nowMs));
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
      reason: `manual sliced full sync in the ${window.label}, ending with it at ${reasonTime(open.endMs, nowMs)} (FULL-6, FULL-8)`,
      ruleIds: ['FULL-8', 'FULL-6', 'FULL-5'],
    };
  }
  if (open?.own) {
    const window = describe(open);
    return {
      kind: 'full',
      windowId: window.id,
      deadline: window.end,
      reason: `manual full sync in the ${window.label}, no further page after ${reasonTime(open.endMs, nowMs)} (FULL-8, FULL-4)`,
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

import { DateTime } from 'luxon';
import {
  DEFAULT_SCHEDULE_SETTINGS,
  initialScheduleState,
  type PeriodId,
  type ScheduleSettings,
  type ScheduleSourceConfig,
  type SourceDecision,
  type SourceScheduleState,
} from '../../shared/schedule';

/** Small factories for the schedule tests: a fake clock is just an ISO string passed as `now`. */

export const settings: ScheduleSettings = { ...DEFAULT_SCHEDULE_SETTINGS };

export function source(overrides: Partial<ScheduleSourceConfig> = {}): ScheduleSourceConfig {
  return {
    sourceId: 'ris-a',
    active: true,
    cadenceMinutes: {},
    fullSyncMinDays: 0,
    fullSyncSliced: false,
    ...overrides,
  };
}

/** '2026-12-02 07:00' (local Europe/Berlin) → '2026-12-02T07:00:00+01:00'. */
export function iso(local: string): string {
  const parsed = DateTime.fromFormat(local, 'yyyy-MM-dd HH:mm', { zone: 'Europe/Berlin' });
  if (!parsed.isValid) throw new Error(`bad local time in test: ${local}`);
  const text = parsed.toISO({ suppressMilliseconds: true });
  if (text === null) throw new Error(`bad local time in test: ${local}`);
  return text;
}

/** ISO → '2026-12-02 07:00' in Europe/Berlin, for readable expectations. */
export function local(isoText: string | undefined): string {
  if (isoText === undefined) return '(none)';
  return DateTime.fromISO(isoText, { zone: 'Europe/Berlin' }).toFormat('yyyy-MM-dd HH:mm');
}

export function minutesBetween(fromIso: string, toIso: string): number {
  return DateTime.fromISO(toIso).diff(DateTime.fromISO(fromIso), 'minutes').minutes;
}

/** The state right after one sync that started (and, unless given, ended) at `startedLocal`. */
export function afterSync(
  startedLocal: string,
  quietStreak: number,
  period: PeriodId,
  overrides: Partial<SourceScheduleState> & { endedLocal?: string } = {},
): SourceScheduleState {
  const { endedLocal, ...rest } = overrides;
  return initialScheduleState({
    lastSyncStartedAt: iso(startedLocal),
    lastSyncEndedAt: iso(endedLocal ?? startedLocal),
    lastSyncPeriod: period,
    lastSyncKind: 'incremental',
    quietStreak,
    ...rest,
  });
}

export function syncDecision(overrides: Partial<SourceDecision> & { sourceId: string }): SourceDecision {
  return {
    action: 'sync',
    kind: 'incremental',
    trigger: 'schedule',
    reason: 'test',
    ruleIds: [],
    ...overrides,
  };
}

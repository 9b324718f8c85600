import type { IngestorEnv } from '../config';
import {
  DEFAULT_FULL_SYNC_HOUR,
  DEFAULT_MAX_CONCURRENT_SYNCS,
  DEFAULT_WEEKDAY_DAY_BASE_MINUTES,
} from './constants';
import { ScheduleError } from './errors';
import type { ScheduleSettings } from './types';

export const DEFAULT_SCHEDULE_SETTINGS: Readonly<ScheduleSettings> = {
  weekdayDayBaseMinutes: DEFAULT_WEEKDAY_DAY_BASE_MINUTES,
  fullSyncHour: DEFAULT_FULL_SYNC_HOUR,
  maxConcurrentSyncs: DEFAULT_MAX_CONCURRENT_SYNCS,
};

/** The planner's settings from the parsed environment (SCH-1, FULL-1, SCH-5). */
export function scheduleSettingsFromEnv(
  environment: Pick<
    IngestorEnv,
    'INGESTOR_INTERVAL' | 'INGESTOR_FULL_SYNC_HOUR' | 'INGESTOR_MAX_CONCURRENT_SYNCS'
  >,
): ScheduleSettings {
  return resolveScheduleSettings({
    weekdayDayBaseMinutes: environment.INGESTOR_INTERVAL,
    fullSyncHour: environment.INGESTOR_FULL_SYNC_HOUR,
    maxConcurrentSyncs: environment.INGESTOR_MAX_CONCURRENT_SYNCS,
  });
}

/**
 * Defaults filled in and ranges checked once, at the boundary (the same ranges as `shared/config/env`),
 * so the decision code can trust them.
 */
export function resolveScheduleSettings(partial: Partial<ScheduleSettings> = {}): ScheduleSettings {
  const settings: ScheduleSettings = { ...DEFAULT_SCHEDULE_SETTINGS, ...stripUndefined(partial) };
  const problems: string[] = [];
  if (!Number.isInteger(settings.weekdayDayBaseMinutes) || settings.weekdayDayBaseMinutes < 1) {
    problems.push(`weekdayDayBaseMinutes must be whole minutes ≥ 1, got ${settings.weekdayDayBaseMinutes}`);
  }
  if (!Number.isInteger(settings.fullSyncHour) || settings.fullSyncHour < 0 || settings.fullSyncHour > 23) {
    problems.push(`fullSyncHour must be a whole hour 0–23, got ${settings.fullSyncHour}`);
  }
  if (!Number.isInteger(settings.maxConcurrentSyncs) || settings.maxConcurrentSyncs < 1) {
    problems.push(`maxConcurrentSyncs must be a whole number ≥ 1, got ${settings.maxConcurrentSyncs}`);
  }
  if (problems.length > 0) throw new ScheduleError('SCHEDULE_INVALID_OPTIONS', problems.join('; '));
  return settings;
}

function stripUndefined<T extends object>(value: Partial<T>): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

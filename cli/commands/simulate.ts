import { parseEnv } from '../../shared/config';
import { scheduleSettingsFromEnv, simulateCadence } from '../../shared/schedule';
import { type CommandResult, UsageError } from '../output';

/** `simulate cadence …`: the planner's real decision code over simulated time (SCH-6 check figure). */
export async function simulateCommand(
  positionals: string[],
  values: {
    from?: string;
    days?: string;
    'session-day'?: string[];
    'change-at'?: string[];
    'sync-seconds'?: string;
  },
): Promise<CommandResult> {
  if (positionals[0] !== 'cadence' || values.from === undefined || values.days === undefined) {
    throw new UsageError(
      'usage: ingestor simulate cadence --from <ISO local time> --days N [--session-day YYYY-MM-DD]… [--change-at <ISO>]… [--sync-seconds S]',
    );
  }
  const days = Number(values.days);
  const syncSeconds = values['sync-seconds'] === undefined ? 0 : Number(values['sync-seconds']);
  if (!Number.isInteger(days) || days < 1) throw new UsageError('--days must be a whole number ≥ 1');
  if (!Number.isFinite(syncSeconds) || syncSeconds < 0) throw new UsageError('--sync-seconds must be ≥ 0');
  const sim = simulateCadence({
    from: values.from,
    days,
    sessionDays: values['session-day'] ?? [],
    changeAt: values['change-at'] ?? [],
    syncSeconds,
    // INGESTOR_INTERVAL and friends apply as they would in the planner.
    settings: scheduleSettingsFromEnv(parseEnv()),
  });
  return {
    text: [
      `${sim.syncs} syncs in ${days} day(s) from ${values.from}`,
      ...Object.entries(sim.byDay).map(([day, n]) => `  ${day}: ${n}`),
    ],
    json: { syncs: sim.syncs, byDay: sim.byDay, times: sim.times },
  };
}

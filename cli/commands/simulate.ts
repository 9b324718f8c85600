import { parseEnv } from '../../shared/config';
import { scheduleSettingsFromEnv, simulateCadence } from '../../shared/schedule';
import type { CommandResult } from '../output';
import type { SimulateCadenceInput } from '.';

/** `simulate cadence …`: the planner's real decision code over simulated time (SCH-6 check figure). */
export async function simulateCommand(values: SimulateCadenceInput): Promise<CommandResult> {
  // --days a whole number ≥ 1, --sync-seconds ≥ 0: the parser's checks (cli/commands/index.ts).
  const { days } = values;
  const sim = simulateCadence({
    from: values.from,
    days,
    sessionDays: values.sessionDay ?? [],
    changeAt: values.changeAt ?? [],
    syncSeconds: values.syncSeconds ?? 0,
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

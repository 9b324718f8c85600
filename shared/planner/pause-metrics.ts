import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  type MetricsBuffer,
  PAUSE_METRICS_EVERY_MINUTES,
  type PauseMetrics,
  pauseMetrics,
  metrics as processMetrics,
  putPauseMetrics,
} from '../observability';
import type { SourceScheduleState } from '../schedule';
import { listSourceStates, loadAllSources, type StoreTables } from '../store';

/**
 * Planner tick: on every 15th minute reads Sources and STATE items, writes the pause gauges (ERR-4 /
 * ERR-5, shared/observability `pauseMetrics`) and flushes. Here rather than in observability because it
 * reads the tables: observability stays below the store. Returns the numbers for the tick's log line
 * (undefined on other ticks). Never throws: metrics must not break planning.
 */
export async function emitPlannerMetrics(
  doc: DynamoDBDocumentClient,
  tables: Pick<StoreTables, 'sources' | 'state'>,
  now: Date,
  {
    target = processMetrics,
    everyMinutes = PAUSE_METRICS_EVERY_MINUTES,
  }: { target?: MetricsBuffer; everyMinutes?: number } = {},
): Promise<PauseMetrics | undefined> {
  if (Math.floor(now.getTime() / 60_000) % everyMinutes !== 0) return undefined;
  try {
    const [{ parsed }, states] = await Promise.all([
      loadAllSources(doc, tables.sources),
      listSourceStates<SourceScheduleState>(doc, tables.state),
    ]);
    const stateById = new Map(states.map((s) => [s.sourceId, s]));
    const result = pauseMetrics(
      parsed.flatMap((p) =>
        p.ok
          ? [
              {
                sourceId: p.source.sourceId,
                active: p.source.active,
                schedule: stateById.get(p.source.sourceId)?.schedule,
              },
            ]
          : [],
      ),
      now,
    );
    putPauseMetrics(result, target);
    target.flush();
    return result;
  } catch {
    return undefined;
  }
}

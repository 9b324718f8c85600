import { backfillListIndex } from '../../shared/mirror';
import { SourceNotFoundError } from '../../shared/onboarding';
import { loadAllSources } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';

/**
 * Updates per second by default: a few percent of what on-demand tables take in a burst, so syncs
 * writing at the same time never notice; 20,000 entries take under six minutes.
 */
export const BACKFILL_DEFAULT_RATE = 60;
const BACKFILL_MAX_RATE = 1000;

/**
 * `ingestor backfill-index [--source ID] [--rate N] [--dry-run]` (issue 16): gives index items written
 * before the OParl API (or for its first list index) their `byList` keys and small objects their inline
 * copy (shared/mirror backfill.ts), then recounts the API list counters (`pagination` counts).
 * Idempotent and paced; a dry run counts what it would write.
 */
export async function backfillIndexCommand(
  rt: LocalRuntime,
  values: { source?: string; rate?: string; dryRun: boolean },
  deps: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<CommandResult> {
  const rate = values.rate === undefined ? BACKFILL_DEFAULT_RATE : Number(values.rate);
  if (!Number.isInteger(rate) || rate < 1 || rate > BACKFILL_MAX_RATE)
    throw new UsageError(`--rate must be a whole number from 1 to ${BACKFILL_MAX_RATE}, got ${values.rate}`);
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const all = parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
  if (values.source !== undefined && !all.includes(values.source))
    throw new SourceNotFoundError(values.source);
  const sourceIds = values.source === undefined ? all : [values.source];
  const report = await backfillListIndex(
    rt.clients,
    { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE },
    { sourceIds, ratePerSecond: rate, dryRun: values.dryRun, ...deps },
  );
  const verb = values.dryRun ? 'would update' : 'updated';
  return {
    text: [
      `${report.scanned} index item(s) read in ${sourceIds.length} source(s); ${verb} ${report.updated} (${report.inlined} with an inline copy, ${report.moved} moved off the first list index)${report.raced > 0 ? `; ${report.raced} left to a newer sync write` : ''}; ${report.lists} list counter(s) checked, ${report.recounted} ${values.dryRun ? 'off' : 'recounted'}${report.legacyCounters > 0 ? `, ${report.legacyCounters} of the first list index ${values.dryRun ? 'to delete' : 'deleted'}` : ''}`,
    ],
    json: { ...report, sources: sourceIds, dryRun: values.dryRun, rate },
  };
}

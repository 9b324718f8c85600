import { backfillListIndex } from '../../shared/mirror';
import { SourceNotFoundError } from '../../shared/onboarding';
import { loadAllSources, mirrorTablePlacement } from '../../shared/store';
import { type CompletionReport, completeTakedowns } from '../../shared/takedown';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import { BACKFILL_MAX_RATE, type BackfillInput } from '.';

/**
 * Updates per second by default: a few percent of what on-demand tables take in a burst, so syncs
 * writing at the same time never notice; 20,000 entries take under six minutes.
 */
export const BACKFILL_DEFAULT_RATE = 60;

/**
 * `ingestor backfill-index [--source ID] [--rate N] [--dry-run]` (issue 16): gives index items written
 * before the OParl API (or for its first list index) their `byList` keys and small objects their inline
 * copy (shared/mirror backfill.ts), then recounts the API list counters (`pagination` counts).
 * Idempotent and paced; a dry run counts what it would write.
 *
 * First, OPT-5: it completes the takedowns a killed `tombstone` left half done (shared/takedown
 * complete.ts) — before the recount, because a takedown's marks are what take the object out of its
 * list's counter. Not paced: takedowns are few, and each is the command's own run, repeated.
 */
export async function backfillIndexCommand(
  rt: LocalRuntime,
  values: BackfillInput,
  deps: { now?: () => number; sleep?: (ms: number) => Promise<void> } = {},
): Promise<CommandResult> {
  // The table refused anything else on the command line (cli/commands/index.ts); this guards the
  // library callers (tests, bench) that pass the input themselves.
  const rate = values.rate ?? BACKFILL_DEFAULT_RATE;
  if (!Number.isInteger(rate) || rate < 1 || rate > BACKFILL_MAX_RATE)
    throw new UsageError(`--rate must be a whole number from 1 to ${BACKFILL_MAX_RATE}, got ${values.rate}`);
  const { parsed } = await loadAllSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const all = parsed.map((p) => (p.ok ? p.source.sourceId : p.sourceId));
  if (values.source !== undefined && !all.includes(values.source))
    throw new SourceNotFoundError(values.source);
  const sourceIds = values.source === undefined ? all : [values.source];
  const takedownDeps = {
    clients: rt.clients,
    tables: {
      sources: rt.env.SOURCES_TABLE,
      state: rt.env.STATE_TABLE,
      documents: rt.env.DOCUMENTS_TABLE,
      mirror: mirrorTablePlacement(rt.env),
    },
    bucket: rt.env.BUCKET,
  };
  const completions: CompletionReport[] = [];
  for (const sourceId of sourceIds)
    completions.push(await completeTakedowns(takedownDeps, sourceId, { dryRun: values.dryRun }));
  const takedowns = takedownSummary(completions);
  const report = await backfillListIndex(
    rt.clients,
    { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE, mirrorTable: mirrorTablePlacement(rt.env) },
    { sourceIds, ratePerSecond: rate, dryRun: values.dryRun, ...deps },
  );
  const verb = values.dryRun ? 'would update' : 'updated';
  return {
    text: [
      takedownLine(takedowns, values.dryRun),
      // Issue 25 point 5: the move to keyed ids comes first in each item's step.
      `${report.rekeyed} index item(s) ${values.dryRun ? 'to move' : 'moved'} to keyed ids${report.superseded > 0 ? `, ${report.superseded} already rewritten by a sync (old copy dropped)` : ''}`,
      `${report.scanned} index item(s) read in ${sourceIds.length} source(s); ${verb} ${report.updated} (${report.inlined} with an inline copy, ${report.moved} moved off the first list index)${report.raced > 0 ? `; ${report.raced} left to a newer sync write` : ''}; ${report.lists} list counter(s) checked, ${report.recounted} ${values.dryRun ? 'off' : 'recounted'}${report.legacyCounters > 0 ? `, ${report.legacyCounters} of the first list index ${values.dryRun ? 'to delete' : 'deleted'}` : ''}`,
    ],
    json: { ...report, takedowns, sources: sourceIds, dryRun: values.dryRun, rate },
  };
}

/** The takedown completion of every source, summed, with the completed items named (json). */
export interface TakedownSummary {
  checked: number;
  complete: number;
  notMirrored: number;
  /** Takedowns completed (or that would be, in a dry run). */
  completed: number;
  tombstoned: number;
  documents: number;
  items: (CompletionReport['completed'][number] & { sourceId: string })[];
}

function takedownSummary(reports: readonly CompletionReport[]): TakedownSummary {
  const sum = (pick: (r: CompletionReport) => number) => reports.reduce((a, r) => a + pick(r), 0);
  return {
    checked: sum((r) => r.checked),
    complete: sum((r) => r.complete),
    notMirrored: sum((r) => r.notMirrored),
    completed: sum((r) => r.completed.length),
    tombstoned: sum((r) => r.tombstoned),
    documents: sum((r) => r.documents),
    items: reports.flatMap((r) => r.completed.map((c) => ({ sourceId: r.sourceId, ...c }))),
  };
}

function takedownLine(t: TakedownSummary, dryRun: boolean): string {
  const completed = dryRun
    ? `${t.completed} interrupted, would complete`
    : `${t.completed} interrupted and completed (${t.tombstoned} object(s) tombstoned, ${t.documents} document(s) flagged)`;
  // Ids with nothing mirrored are named, not retried: the registry alone keeps them out (OPT-5).
  const none = t.notMirrored > 0 ? `, ${t.notMirrored} with nothing mirrored to mark` : '';
  return `takedowns (OPT-5): ${t.checked} checked, ${completed}${none}`;
}

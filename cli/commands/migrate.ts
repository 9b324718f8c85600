import { moveMirrorTable } from '../../shared/mirror';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import { BACKFILL_MAX_RATE, type MigrateMirrorTableInput } from '.';

/**
 * Items a second by default for the Mirror table's bulk commands (the move's copy, `mirror rebuild`),
 * from the table's capacity: it is on-demand (infra/table-capacity.ts DECIDED_CAPACITY) and takes
 * 4,000 write units a second at once as a new table (AWS's initial on-demand throughput), but at most
 * 1,000 a second into one partition — and both commands walk their source in key order, so their writes
 * fall into one `MIRROR#<source>#<type>` partition after another. An item costs 2 write units (⌈KB⌉,
 * the average item, bench/cost/mirror-move.ts) and 1 more in `byList`: 200 items a second are 400 units on the hot partition (40 % of
 * its limit, the syncs' own writes there beside it) and 600 on the table (15 %; its own peak, the 03:00
 * full syncs, is ≈ 125). 13 M items (1,000 sources) take 18 hours; 60 a second (backfill-index's
 * pace) took 60. `--rate` up to 1,000 is allowed (≈ 3.6 hours) once the table has had such a peak.
 */
export const MIRROR_BULK_DEFAULT_RATE = 200;

/**
 * `ingestor migrate mirror-table [--delete-old] [--rate N] [--restart]` (issue 28): the move of the
 * mirror's index items from State to the Mirror table (shared/mirror move.ts), in the phase the
 * deployment says (MIRROR_TABLE_PHASE; `--aws`: the stack's output) — the copy after deploy 1
 * (`dual`), `--delete-old` after deploy 2 (`own`); any other phase is refused. Resumable (a rerun
 * continues where the last stopped) and idempotent; paced like `backfill-index`.
 */
export async function migrateMirrorTableCommand(
  rt: LocalRuntime,
  values: MigrateMirrorTableInput,
  deps: { now?: () => number; sleep?: (ms: number) => Promise<void>; pageSize?: number } = {},
): Promise<CommandResult> {
  const rate = values.rate ?? MIRROR_BULK_DEFAULT_RATE;
  if (!Number.isInteger(rate) || rate < 1 || rate > BACKFILL_MAX_RATE)
    throw new UsageError(`--rate must be a whole number from 1 to ${BACKFILL_MAX_RATE}, got ${values.rate}`);
  const step = values.deleteOld ? 'delete-old' : 'copy';
  const report = await moveMirrorTable(
    rt.clients,
    { state: rt.env.STATE_TABLE, mirror: rt.env.MIRROR_TABLE },
    { step, phase: rt.env.MIRROR_TABLE_PHASE, ratePerSecond: rate, restart: values.restart, ...deps },
  );
  const c = report.counts;
  const text = report.alreadyDone
    ? [`mirror table: ${step} finished before (${c.written} written); --restart for another pass`]
    : [
        step === 'copy'
          ? `mirror table: ${c.scanned} State item(s) read, ${c.written} copied, ${c.present} already there${c.purged > 0 ? `, ${c.purged} purged meanwhile (copy removed)` : ''}${c.raced > 0 ? `, ${c.raced} changing on every attempt — run again with --restart` : ''}`
          : `mirror table: ${c.scanned} State item(s) read, ${c.written} deleted${c.missing > 0 ? `, ${c.missing} not in the Mirror table kept (e.g. ${report.missing.slice(0, 3).join('; ')})` : ''}`,
      ];
  return { text, json: { ...report, rate } };
}

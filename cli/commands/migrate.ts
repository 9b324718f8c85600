import { MIRROR_BULK_DEFAULT_RATE, moveMirrorTable } from '../../shared/mirror';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import { BACKFILL_MAX_RATE, type MigrateMirrorTableInput } from '.';

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

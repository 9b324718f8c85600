import { DEL_SAMPLES_PER_BODY, type DeletionRunFit, type DeletionRunMeasure } from '../../shared/documents';
import { explainSources } from '../../shared/planner';
import { scheduleSettingsFromEnv, toBerlin, toIso } from '../../shared/schedule';
import { DeletionRuns } from '../../shared/store';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import type { CommandResult } from '../output';

/** `status [<sourceId>]`: why each source waits, runs or is paused — the planner's own decision. */
export async function statusCommand(
  rt: LocalRuntime,
  sourceId: string | undefined,
  now: Date,
): Promise<CommandResult> {
  const all = await explainSources(
    {
      doc: rt.clients.doc,
      tables: { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE },
      // The same host ledger as the planner and `hosts`: a paused host or other fetches' share is said here too.
      hostLedger: await composeCli(rt).hostLedger(),
    },
    scheduleSettingsFromEnv(rt.env),
    now,
  );
  const rows = sourceId === undefined ? all : all.filter((s) => s.sourceId === sourceId);
  if (sourceId !== undefined && rows.length === 0) {
    return { text: [`no source ${sourceId}`], json: { error: 'NOT_FOUND', sourceId }, exitCode: 1 };
  }
  const text = rows.length === 0 ? ['no sources'] : [];
  for (const s of rows) {
    const state = !s.valid ? 'INVALID' : s.active ? 'active' : 'inactive';
    text.push(
      `${s.sourceId}  [${state}]  ${s.action}${s.kind ? ` ${s.kind}` : ''}${s.nextDueAt ? `  next ${berlin(s.nextDueAt)}` : ''}`,
    );
    text.push(`  why: ${s.reason}`);
    // RATE-9: a stretched cadence or a full sync behind is said even when the decision names it already.
    if (s.hostSaturated && !s.reason.includes(s.hostSaturated)) text.push(`  ${s.hostSaturated}`);
    if (s.fullSyncBehind && !s.reason.includes(s.fullSyncBehind)) text.push(`  ${s.fullSyncBehind}`);
    // The exact instant; the sentence only when `why` does not say it already (it does while spared).
    if (s.paused)
      text.push(
        `  paused until ${berlin(s.paused.until)}${s.reason.includes(s.paused.reason) ? '' : `: ${s.paused.reason}`}`,
      );
    if (s.running)
      text.push(
        `  running ${s.running.kind} since ${berlin(s.running.since)} (lease until ${berlin(s.running.leaseUntil)})`,
      );
    if (s.lastRun) {
      const r = s.lastRun as {
        ok?: boolean;
        kind?: string;
        endedAt?: string;
        requests?: number;
        failures?: string[];
      };
      text.push(
        `  last run: ${r.ok ? 'ok' : 'FAILED'} ${r.kind ?? ''} ended ${r.endedAt === undefined ? '?' : berlin(r.endedAt)}, ${r.requests ?? 0} requests${r.failures && r.failures.length > 0 ? `, failures: ${r.failures.join(', ')}` : ''}`,
      );
    }
    if (s.failureStreak > 0) text.push(`  failed runs in a row: ${s.failureStreak}`);
    for (const w of s.warnings) text.push(`  config warning: ${w.field} ${w.message}`);
  }
  // DEL-2 (issue 28): the sample interval the deletion check keeps, as its last run of each shard measured.
  const deletion = Object.entries(
    await new DeletionRuns({ doc: rt.clients.doc, table: rt.env.DOCUMENTS_TABLE }).all(),
  )
    .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
    .map(([, m]) => m as unknown as DeletionRunMeasure & DeletionRunFit);
  for (const m of deletion) text.push(deletionLine(m));
  return { text, json: { at: now.toISOString(), sources: rows, deletionCheck: deletion } };
}

const DAY_MS = 86_400_000;

/** "deletion check: every stored file sampled every 7.0 days; last run 285 s of 780 s" (DEL-2). */
export function deletionLine(m: DeletionRunMeasure & DeletionRunFit): string {
  const head = m.shard === 'whole' ? 'deletion check' : `deletion check (shard ${m.shard})`;
  const interval =
    m.sampleIntervalMs === undefined
      ? `no check asked before the deadline (${m.leftAtDeadline} left): the sample interval is unknown`
      : `every stored file sampled every ${(m.sampleIntervalMs / DAY_MS).toFixed(1)} days` +
        (m.fits ? '' : ` (the run needs ${(m.load ?? 0).toFixed(2)} × its time)`);
  const run = `last run ${Math.round(m.seconds)} s${m.budgetSeconds === undefined ? '' : ` of ${Math.round(m.budgetSeconds)} s`} at ${berlin(m.at)}, ${m.samples} samples`;
  const left = m.leftAtDeadline > 0 && m.asked > 0 ? `, ${m.leftAtDeadline} checks left at its deadline` : '';
  const capped =
    m.bodiesAtCap > 0
      ? `; ${m.bodiesAtCap} ${m.bodiesAtCap === 1 ? 'body' : 'bodies'} at the ${DEL_SAMPLES_PER_BODY}-sample cap (their files sampled less often)`
      : '';
  return `${head}: ${interval}; ${run}${left}${capped}`;
}

/**
 * An instant as the planner writes its own (Europe/Berlin, with offset): the State item keeps some in
 * UTC, and "since 03:30+01:00, lease until 02:55Z" reads as a lease that ended before it began.
 */
function berlin(iso: string): string {
  // A hand-edited State item may hold anything: shown as it is rather than failing the whole status.
  return Number.isNaN(Date.parse(iso)) ? iso : toIso(toBerlin(new Date(iso).toISOString()));
}

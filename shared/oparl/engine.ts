import type { SourceConfig } from '../config';
import { runStart, StopRun, type SyncReport } from '../engine';
import { IngestorError } from '../errors';
import { continuePass, nextCursor, type SyncCursor } from './cursor';
import { phaseFilterCheck } from './filter-check';
import { saveDigest } from './list-digest';
import { phaseLists } from './lists';
import { finish, stop } from './report';
import { OParlRun, type SyncDeps, type SyncRunOptions } from './run-context';
import { phaseBodies, phaseSystem } from './system';

/**
 * The OParl sync engine: one source, one run, any number of invocations.
 *
 * Every page is followed by a checkpoint of the run cursor (State `CURSOR#<kind>`, optimistic lock), and
 * every object write is idempotent (deterministic S3 key, index item as commit point), so an invocation
 * killed at any point and resumed with the same `runId` ends with the same mirror as one that was never
 * interrupted. The pure decisions live in `decisions.ts` / `windows.ts`; the phases execute them, each in
 * its own file over the run's context (`run-context.ts`): `system.ts` (System, body list), `lists.ts`
 * (with `list-task.ts`, `list-page.ts`, `list-errors.ts`), `filter-check.ts` (SCH-10), `report.ts`.
 * This file picks the cursor an invocation starts from and walks the phases.
 */
export type { SyncDeps, SyncRunOptions };

export async function syncSource(
  deps: SyncDeps,
  source: SourceConfig,
  run: SyncRunOptions,
): Promise<SyncReport> {
  if (source.kind !== 'oparl') {
    throw new IngestorError('SYNC_NOT_OPARL', `source ${source.sourceId} is a ${source.kind} source`);
  }
  if (run.kind === 'sliced' && run.windowEndMs === undefined) {
    // FULL-6: slices only inside a window and ending with it; called without one (command line), an
    // incremental sync runs instead.
    deps.log?.('sliced-without-window', { sourceId: source.sourceId, runId: run.runId, runs: 'incremental' });
    return execute(new OParlRun(deps, source, { ...run, kind: 'incremental' }));
  }
  return execute(new OParlRun(deps, source, run));
}

async function execute(run: OParlRun): Promise<SyncReport> {
  const nowIso = run.nowIso();
  // Issue 28: the cursor, System, bodies, list marks and session days in one read (one Query of the
  // partition, ≈ 3 read units, instead of one GetItem or Query each, ≈ 7).
  await run.state.preload();
  const existing = await run.state.getCursor<SyncCursor>(run.options.kind);
  const start = runStart(existing, run.options.runId, run.options.kind !== 'incremental');
  const startIso = run.options.startedAt ? run.options.startedAt.toISOString() : nowIso;
  if (start.start === 'replay') {
    // A redelivered message of a finished run: answer again, fetch nothing.
    const done = start.cursor;
    return {
      ...(done.report as SyncReport),
      lists: await run.state.getRunLists(done.kind, done.runId, done.listCount),
    };
  }
  if (start.start === 'resume') {
    run.frame.begin(start.cursor, existing);
    run.log('resume', {
      phase: start.cursor.phase,
      bodyIndex: start.cursor.bodyIndex,
      listIndex: start.cursor.listIndex,
    });
  } else if (start.start === 'continue') {
    run.frame.begin(continuePass(start.cursor, run.options.runId, startIso), existing);
    run.log('continue-pass', {
      passStartedAt: start.cursor.passStartedAt,
      doneLists: start.cursor.doneLists.length,
    });
  } else {
    const ids = { sourceId: run.source.sourceId, runId: run.options.runId, kind: run.options.kind };
    run.frame.begin(nextCursor(start.cursor, ids, startIso), existing);
  }
  // OPT-5: once per invocation, also for a resumed or redelivered run.
  await run.takedowns.load();
  try {
    await loop(run);
  } catch (err) {
    if (err instanceof StopRun) {
      // Issue 28: a list stopped half-way keeps what its digest learnt (the stamp goes with the cursor).
      if (run.cursor.task) await saveDigest(run, run.cursor.task);
      return stop(run, err.reason);
    }
    throw err;
  }
  return finish(run);
}

async function loop(run: OParlRun): Promise<void> {
  for (;;) {
    switch (run.cursor.phase) {
      case 'system':
        await phaseSystem(run);
        break;
      case 'bodies':
        await phaseBodies(run);
        break;
      case 'lists':
        await phaseLists(run);
        break;
      case 'filter-check':
        await phaseFilterCheck(run);
        break;
      case 'finish':
        return;
    }
  }
}

import { randomUUID } from 'node:crypto';
import { DIGEST_BASIS_MARGIN_MS, ListDigest, type ListDigestData, listPartition, listTime } from '../mirror';
import type { ListDigestKey } from '../store';
import type { ListTask } from './cursor';
import type { OParlRun } from './run-context';

/**
 * Issue 28: a full sync's per-list digest (shared/mirror digest.ts) — opened once per invocation at the
 * list's first page, checked for staleness, handed to the writer with every page, and written when the
 * list ends or the run stops at a checkpoint (deadline, window, operator's stop), its stamp then in the
 * list's marks. A run killed in between leaves the digest as it was: its stamp still matches, and what
 * the killed run committed is found by the basis Query and looked up again — nothing is trusted that a
 * commit changed.
 *
 * Only full reads of a list (`full`, FULL-5 `slices`): an incremental run sees few objects, and reading
 * a list's whole digest for them would cost more than their lookups.
 */

/** Whether the task reads its list whole (a full sync). */
export function usesDigest(task: ListTask): boolean {
  return task.mode === 'full' || task.mode === 'slices';
}

function keyOf(run: OParlRun, task: ListTask): ListDigestKey {
  return { sourceId: run.source.sourceId, bodyKey: task.bodyKey, list: task.list };
}

function sameList(a: ListDigestKey, b: ListDigestKey): boolean {
  return a.sourceId === b.sourceId && a.bodyKey === b.bodyKey && a.list === b.list;
}

/** The open digest of the task's list, read (and checked) on first use in this invocation. */
export async function digestFor(run: OParlRun, task: ListTask): Promise<ListDigest | undefined> {
  if (run.deps.listDigests === false || !usesDigest(task)) return undefined;
  const key = keyOf(run, task);
  if (run.digest && sameList(run.digest.key, key)) return run.digest.digest;
  const openedAtMs = run.nowMs();
  let digest: ListDigest;
  try {
    const opened = ListDigest.open(await run.digests.read(key), task.marks.digest);
    if (typeof opened === 'string') {
      run.log('digest-rebuilt', { list: task.list, body: task.bodyKey, reason: opened });
      digest = ListDigest.empty();
    } else {
      // Commits since the basis, in every body's lists of the source: an object may move between them.
      const partitions: string[] = [];
      for (const bodyKey of run.cursor.bodyKeys) {
        const body = await run.loadBody(bodyKey);
        if (!body) continue;
        for (const type of opened.types()) partitions.push(listPartition(run.source.sourceId, body.id, type));
      }
      const committed = await run.digests.committedAfter(partitions, listTime(opened.basis as string));
      const stale = opened.forgetCommitted(committed);
      run.log('digest-opened', { list: task.list, body: task.bodyKey, entries: opened.size, stale });
      digest = opened;
    }
  } catch (error) {
    // The digest only saves reads: without it every object is looked up, as before issue 28.
    run.log('digest-unreadable', { list: task.list, body: task.bodyKey, error: (error as Error).message });
    digest = ListDigest.empty();
  }
  run.digest = { key, digest, openedAtMs };
  return digest;
}

/**
 * Writes the open digest when the run changed it (or its basis is old), then names its stamp in the
 * task's marks — which the list's end writes to its State mark and a stop to the cursor. A failed write
 * keeps the old stamp: the old digest stays trusted (with its basis), the new one is ignored.
 */
export async function saveDigest(run: OParlRun, task: ListTask): Promise<void> {
  const open = run.digest;
  if (!open || !sameList(open.key, keyOf(run, task))) return;
  run.digest = undefined;
  if (!open.digest.needsWrite(run.nowMs())) return;
  const stamp = randomUUID();
  // Commits after the opening minus a margin are looked for next time (the index may lag, clocks differ).
  const basis = new Date(open.openedAtMs - DIGEST_BASIS_MARGIN_MS).toISOString();
  const data: ListDigestData = open.digest.toData(stamp, basis);
  try {
    const bytes = await run.digests.write(open.key, data);
    task.marks = { ...task.marks, digest: stamp };
    run.log('digest-written', { list: task.list, body: task.bodyKey, entries: open.digest.size, bytes });
  } catch (error) {
    run.log('digest-not-written', { list: task.list, body: task.bodyKey, error: (error as Error).message });
  }
}

import { describe, expect, it } from 'vitest';
import {
  CHECKPOINT_MAX_UNSAVED_REQUESTS,
  MAX_FAILURES_KEPT,
  type RunCursor,
  RunFrame,
  runStart,
  StopRun,
} from '../../shared/engine';

type CountedCursor = RunCursor & { totals: { requests: number; new: number; documents: number } };

/** The run frame both source kinds share (issue 15): start decision, checkpoint lock, budget, stop. */
function cursor(over: Partial<RunCursor> = {}): RunCursor {
  return {
    kind: 'full',
    seq: 3,
    runId: 'r1',
    status: 'running',
    failures: [],
    flags: { disallowed: 0, answered: 0 },
    ...over,
  };
}

function frame(budget: ConstructorParameters<typeof RunFrame>[1], nowMs = 1_000) {
  const writes: { seq: number; previous: number | undefined; status: string }[] = [];
  const events: string[] = [];
  const store = {
    commits: 0,
    putCursor: async (c: RunCursor, previous: number | undefined) => {
      writes.push({ seq: c.seq, previous, status: c.status });
    },
  };
  const f = new RunFrame<CountedCursor>(
    {
      store,
      nowMs: () => nowMs,
      log: (event) => events.push(event),
    },
    budget,
  );
  return { f, writes, events, store };
}

function counted(over: Partial<CountedCursor> = {}): CountedCursor {
  return { ...cursor(), totals: { requests: 0, new: 0, documents: 0 }, ...over };
}

describe('runStart: which cursor an invocation starts from', () => {
  it('SCH-5: the same run resumes; a finished one with its report is replayed', () => {
    expect(runStart(cursor(), 'r1', true).start).toBe('resume');
    expect(runStart(cursor({ status: 'done', report: { any: 1 } }), 'r1', true).start).toBe('replay');
    // Done without a report is not answerable: it resumes (as both engines did before).
    expect(runStart(cursor({ status: 'done' }), 'r1', true).start).toBe('resume');
  });

  it('FULL-2 / FULL-4: an open pass of another run continues only where the kind lets passes continue', () => {
    expect(runStart(cursor(), 'r2', true).start).toBe('continue');
    expect(runStart(cursor(), 'r2', false).start).toBe('new');
    expect(runStart(cursor({ status: 'done' }), 'r2', true).start).toBe('new');
    expect(runStart(undefined, 'r2', true)).toEqual({ start: 'new' });
  });
});

describe('RunFrame', () => {
  it('checkpoints with the lock on the seq it read, then on its own', async () => {
    const { f, writes } = frame({});
    f.begin(counted({ seq: 0, stopReason: 'deadline' }), { kind: 'full', seq: 7 });
    expect(f.cursor.stopReason).toBeUndefined();
    await f.save();
    await f.save();
    expect(writes.map((w) => [w.previous, w.seq])).toEqual([
      [7, 8],
      [8, 9],
    ]);
  });

  it('a new cursor item is created without a lock (previous undefined)', async () => {
    const { f, writes } = frame({});
    f.begin(counted({ seq: 0 }), undefined);
    await f.save();
    expect(writes).toEqual([{ seq: 1, previous: undefined, status: 'running' }]);
  });

  it('issue 18: a checkpoint after pages that changed nothing is kept in memory, up to CHECKPOINT_MAX_UNSAVED_REQUESTS requests', async () => {
    const { f, writes } = frame({});
    f.begin(counted(), { kind: 'full', seq: 3 });
    for (let i = 1; i < CHECKPOINT_MAX_UNSAVED_REQUESTS; i += 1) {
      f.cursor.totals.requests += 1;
      await f.checkpoint();
    }
    expect(writes).toEqual([]);
    f.cursor.totals.requests += 1;
    await f.checkpoint();
    expect(writes.map((w) => [w.previous, w.seq])).toEqual([[3, 4]]);
    // The count starts again at the save.
    f.cursor.totals.requests += 1;
    await f.checkpoint();
    expect(writes).toHaveLength(1);
  });

  it('issue 18: an invocation resuming a run that died (same run, no stop saved) saves every checkpoint; a continuation after a clean stop does not', async () => {
    const died = frame({});
    died.f.begin(counted(), { ...counted({ seq: 5 }) } as RunCursor);
    died.f.cursor.totals.requests += 1;
    await died.f.checkpoint();
    expect(died.writes).toHaveLength(1);
    const continued = frame({});
    continued.f.begin(counted(), { ...counted({ seq: 5, stopReason: 'deadline' }) } as RunCursor);
    continued.f.cursor.totals.requests += 1;
    await continued.f.checkpoint();
    expect(continued.writes).toHaveLength(0);
    const otherRun = frame({});
    otherRun.f.begin(counted(), { ...counted({ seq: 5, runId: 'r0' }) } as RunCursor);
    otherRun.f.cursor.totals.requests += 1;
    await otherRun.f.checkpoint();
    expect(otherRun.writes).toHaveLength(0);
  });

  it('issue 18: a commit is saved at the next checkpoint — an object written, a failure, a store write, the run done', async () => {
    const { f, writes, store } = frame({});
    f.begin(counted(), { kind: 'full', seq: 3 });
    await f.checkpoint();
    expect(writes).toHaveLength(0);
    f.cursor.totals.new += 1;
    await f.checkpoint();
    expect(writes).toHaveLength(1);
    f.failure({ kind: 'other', detail: 'x' });
    await f.checkpoint();
    expect(writes).toHaveLength(2);
    store.commits += 1;
    await f.checkpoint();
    expect(writes).toHaveLength(3);
    f.done({ requests: 1 });
    await f.checkpoint();
    expect(writes.map((w) => w.status)).toEqual(['running', 'running', 'running', 'done']);
    // A resumed run already marked done (without its report) still saves the report it ends with.
    const again = frame({});
    again.f.begin(counted({ status: 'done' }), { kind: 'full', seq: 9 });
    again.f.done({ requests: 2 });
    await again.f.checkpoint();
    expect(again.writes).toHaveLength(1);
  });

  it('issue 28: a run ends as it began only when it started here, saved nothing and committed nothing', async () => {
    // Another run's cursor stored, pages read (requests, pages are progress), done: nothing to account for.
    const quiet = frame({});
    quiet.f.begin(counted(), counted({ runId: 'r0', status: 'done' }));
    quiet.f.cursor.totals.requests += 10;
    quiet.f.done({ requests: 10 });
    expect(quiet.f.endsAsItBegan()).toBe(true);
    // Each commit makes the end one to write: an object, a document, a failure, a store write.
    const commits: ((x: ReturnType<typeof frame>) => void)[] = [
      (x) => {
        x.f.cursor.totals.new += 1;
      },
      (x) => {
        x.f.cursor.totals.documents += 1;
      },
      (x) => x.f.failure({ kind: 'other', detail: 'x' }),
      (x) => {
        x.store.commits += 1;
      },
    ];
    for (const commit of commits) {
      const x = frame({});
      x.f.begin(counted(), counted({ runId: 'r0', status: 'done' }));
      commit(x);
      x.f.done({ requests: 1 });
      expect(x.f.endsAsItBegan()).toBe(false);
    }
    // A checkpoint saved in this invocation (CHECKPOINT_MAX_UNSAVED_REQUESTS pages): the stored cursor is
    // this run's now, running — its end must reach the store.
    const saved = frame({});
    saved.f.begin(counted(), counted({ runId: 'r0', status: 'done' }));
    saved.f.cursor.totals.requests += CHECKPOINT_MAX_UNSAVED_REQUESTS;
    await saved.f.checkpoint();
    saved.f.done({ requests: CHECKPOINT_MAX_UNSAVED_REQUESTS });
    expect(saved.f.endsAsItBegan()).toBe(false);
    // The same run resumed (after a crash or a deadline stop): its stored cursor is its own.
    for (const stopReason of [undefined, 'deadline'] as const) {
      const resumed = frame({});
      const stored = counted(stopReason ? { stopReason } : {});
      resumed.f.begin(counted(), stored);
      resumed.f.done({ requests: 0 });
      expect(resumed.f.endsAsItBegan()).toBe(false);
    }
  });

  it('SCH-5 / FULL-4: the budget, the operator stop and the own window each stop the run', () => {
    const stopOf = (budget: ConstructorParameters<typeof RunFrame>[1]) => {
      const { f } = frame(budget, 5_000);
      try {
        f.checkStop();
        return 'none';
      } catch (err) {
        return err instanceof StopRun ? err.reason : 'crash';
      }
    };
    const aborted = new AbortController();
    aborted.abort();
    expect(stopOf({ deadlineMs: 6_000, windowEndMs: 6_000 })).toBe('none');
    expect(stopOf({ deadlineMs: 5_000, windowEndMs: 5_000 })).toBe('deadline');
    expect(stopOf({ signal: aborted.signal, windowEndMs: 5_000 })).toBe('interrupted');
    expect(stopOf({ windowEndMs: 5_000 })).toBe('window');
  });

  it('ROB-8: a stop for good notes robots.txt forbidding all; an incremental run is then done, a pass stays open', async () => {
    const forbidden = { disallowed: 2, answered: 0 };
    const inc = frame({});
    inc.f.begin(counted({ flags: { ...forbidden } }), undefined);
    const report = await inc.f.stop(
      'failure',
      true,
      async (continued) => ({ requests: 0, continued }),
      (r) => r,
    );
    expect(report.continued).toBe(false);
    expect(inc.f.cursor.failures.map((x) => x.kind)).toEqual(['robots-forbids-all']);
    expect(inc.writes.at(-1)?.status).toBe('done');
    expect(inc.f.cursor.report).toEqual(report);

    const pass = frame({});
    pass.f.begin(counted({ flags: { ...forbidden } }), undefined);
    await pass.f.stop(
      'failure',
      false,
      async (continued) => ({ requests: 0, continued }),
      (r) => r,
    );
    expect(pass.writes.at(-1)?.status).toBe('running');

    const cut = frame({});
    cut.f.begin(counted({ flags: { ...forbidden } }), undefined);
    const cutReport = await cut.f.stop(
      'deadline',
      true,
      async (continued) => ({ requests: 0, continued }),
      (r) => r,
    );
    expect(cutReport.continued).toBe(true);
    expect(cut.f.cursor.failures).toEqual([]);
    expect(cut.f.cursor.stopReason).toBe('deadline');
  });

  it('keeps at most MAX_FAILURES_KEPT failures in the cursor', () => {
    const { f, events } = frame({});
    f.begin(counted(), undefined);
    for (let i = 0; i < MAX_FAILURES_KEPT + 50; i += 1) f.failure({ kind: 'other', detail: `f${i}` });
    expect(f.cursor.failures).toHaveLength(MAX_FAILURES_KEPT);
    expect(events.filter((e) => e === 'failure')).toHaveLength(MAX_FAILURES_KEPT + 50);
  });
});

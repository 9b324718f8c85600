import { describe, expect, it } from 'vitest';
import { MAX_FAILURES_KEPT, type RunCursor, RunFrame, runStart, StopRun } from '../../shared/engine';

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
  const f = new RunFrame<RunCursor>(
    {
      store: {
        putCursor: async (c, previous) => {
          writes.push({ seq: c.seq, previous, status: c.status });
        },
      },
      nowMs: () => nowMs,
      log: (event) => events.push(event),
    },
    budget,
  );
  return { f, writes, events };
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
    f.begin(cursor({ seq: 0, stopReason: 'deadline' }), { kind: 'full', seq: 7 });
    expect(f.cursor.stopReason).toBeUndefined();
    await f.checkpoint();
    await f.checkpoint();
    expect(writes.map((w) => [w.previous, w.seq])).toEqual([
      [7, 8],
      [8, 9],
    ]);
  });

  it('a new cursor item is created without a lock (previous undefined)', async () => {
    const { f, writes } = frame({});
    f.begin(cursor({ seq: 0 }), undefined);
    await f.checkpoint();
    expect(writes).toEqual([{ seq: 1, previous: undefined, status: 'running' }]);
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
    inc.f.begin(cursor({ flags: { ...forbidden } }), undefined);
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
    pass.f.begin(cursor({ flags: { ...forbidden } }), undefined);
    await pass.f.stop(
      'failure',
      false,
      async (continued) => ({ requests: 0, continued }),
      (r) => r,
    );
    expect(pass.writes.at(-1)?.status).toBe('running');

    const cut = frame({});
    cut.f.begin(cursor({ flags: { ...forbidden } }), undefined);
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
    f.begin(cursor(), undefined);
    for (let i = 0; i < MAX_FAILURES_KEPT + 50; i += 1) f.failure({ kind: 'other', detail: `f${i}` });
    expect(f.cursor.failures).toHaveLength(MAX_FAILURES_KEPT);
    expect(events.filter((e) => e === 'failure')).toHaveLength(MAX_FAILURES_KEPT + 50);
  });
});

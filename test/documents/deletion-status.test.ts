import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusCommand } from '../../cli/commands/status';
import type { LocalRuntime } from '../../cli/local/runtime';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import {
  DEL_SAMPLE_INTERVAL_MS,
  type DeletionRunFit,
  type DeletionRunMeasure,
  measuredSampleFit,
  runDeletionCheck,
  runFilesPass,
} from '../../shared/documents';
import {
  DAY,
  type DocumentsBed,
  getDoc,
  putBody,
  putSource,
  recordFile,
  startDocumentsBed,
} from '../support/documents-bed';

/**
 * DEL-2 / issue 28: `status` says the sample interval the deletion check keeps, from what its last run
 * of each shard measured (seconds taken of its budget, checks asked and left at its deadline), and
 * `--json` carries the figures. The run against the fake council on loopback, the local S3 and DynamoDB;
 * `status` as the CLI runs it on the same peers.
 */
describe('DEL-2: status says the deletion check’s sample interval', () => {
  let bed: DocumentsBed;
  let council: FakeCouncil;
  const SOURCE = 'stadt-del-status';
  const BODY = 'https://ris-del-status.test/oparl/v1/bodies/1';
  const rt = (): LocalRuntime => ({
    env: bed.aws.env,
    clients: bed.aws.clients,
    dataDir: '',
    close: async () => {},
  });
  const deletionCheck = async () => {
    const status = await statusCommand(rt(), undefined, bed.now());
    const rows = (status.json as { deletionCheck: (DeletionRunMeasure & DeletionRunFit)[] }).deletionCheck;
    return { lines: status.text.filter((l) => l.startsWith('deletion check')), rows };
  };

  beforeAll(async () => {
    bed = await startDocumentsBed();
    council = await startFakeCouncil({ hostname: 'ris-del-status.test', objectsPerList: { file: 3 } });
    await putSource(bed, { sourceId: SOURCE, systemUrl: council.systemUrl });
    await putBody(bed, SOURCE, { id: BODY, listed: true });
    const docIds: string[] = [];
    for (let n = 1; n <= 3; n++)
      docIds.push(
        await recordFile(bed, { sourceId: SOURCE, bodyId: BODY, url: `${council.url}/files/1/${n}.pdf` }),
      );
    await runFilesPass(bed.deps, { now: bed.now() });
    for (const docId of docIds) expect((await getDoc(bed, docId)).state).toBe('stored');
  });
  afterAll(async () => {
    await council?.close();
    await bed?.close();
  });

  it('DEL-2: before any run status says nothing of it; after a run that fits, "every stored file sampled every 7.0 days; last run … s of 780 s"', async () => {
    expect(await deletionCheck()).toEqual({ lines: [], rows: [] });
    // The three stored files are due for their first sample a week on.
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS);
    const report = await runDeletionCheck(bed.deps, { now: bed.now(), deadlineMs: Date.now() + 780_000 });
    expect(report.measured).toMatchObject({
      shard: 'whole',
      asked: 3,
      samples: 3,
      leftAtDeadline: 0,
      fits: true,
    });

    const { lines, rows } = await deletionCheck();
    expect(rows).toEqual([
      expect.objectContaining({
        shard: 'whole',
        samples: 3,
        fits: true,
        sampleIntervalMs: DEL_SAMPLE_INTERVAL_MS,
      }),
    ]);
    // The budget is the deadline less the run's start (wall clock): 780 s, a second less at most.
    expect(rows[0]?.budgetSeconds).toBeGreaterThan(779);
    expect(rows[0]?.budgetSeconds).toBeLessThanOrEqual(780);
    expect(lines).toEqual([
      expect.stringMatching(
        /^deletion check: every stored file sampled every 7\.0 days; last run \d+ s of 780 s at .*, 3 samples$/,
      ),
    ]);
  });

  it('DEL-2: a run whose deadline left its checks unasked says so — the interval unknown, the checks left', async () => {
    bed.clock.advance(DEL_SAMPLE_INTERVAL_MS + DAY);
    const report = await runDeletionCheck(bed.deps, { now: bed.now(), deadlineMs: Date.now() - 1 });
    expect(report.measured).toMatchObject({ asked: 0, leftAtDeadline: 3, fits: false });
    const { lines, rows } = await deletionCheck();
    expect(rows).toEqual([expect.objectContaining({ asked: 0, leftAtDeadline: 3, fits: false })]);
    expect(lines[0]).toMatch(
      /^deletion check: no check asked before the deadline \(3 left\): the sample interval is unknown; last run/,
    );
  });

  it('DEL-2: the measured rule — a run that left checks at its deadline keeps a longer interval in proportion', () => {
    const base = { at: '', shard: '1/4', samples: 90, bodiesAtCap: 0 };
    // All asked in 285 s of 780: fits, weekly.
    expect(
      measuredSampleFit({ ...base, seconds: 285, budgetSeconds: 780, asked: 100, leftAtDeadline: 0 }),
    ).toEqual({
      load: 285 / 780,
      fits: true,
      sampleIntervalMs: DEL_SAMPLE_INTERVAL_MS,
    });
    // Half asked when the 780 s ran out: all would take 1,560 s — twice its time, every 14 days.
    const half = measuredSampleFit({
      ...base,
      seconds: 780,
      budgetSeconds: 780,
      asked: 100,
      leftAtDeadline: 100,
    });
    expect(half).toEqual({ load: 2, fits: false, sampleIntervalMs: 2 * DEL_SAMPLE_INTERVAL_MS });
  });
});

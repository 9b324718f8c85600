import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent } from '../../shared/changes';
import type { SyncRuntime } from '../../shared/sync/compose';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { json, type MiniCouncil, oneBodySystem, startMiniCouncil } from '../support/mini-council';
import { testSource } from '../support/oparl-harness';
import { startSyncRuntime } from '../support/sync-runtime';

/**
 * The sync function publishes what one message committed before the message counts as done — also
 * fewer events than a full batch (issue 16). Real runtime, real council on loopback, file feed.
 */
const file = join(tmpdir(), `changes-runtime-${process.pid}-${Date.now()}.jsonl`);
let bed: AwsTestbed;
let council: MiniCouncil;
let rt: SyncRuntime;

beforeAll(async () => {
  bed = await startAwsTestbed({ INGESTOR_CHANGE_FILE: file });
  council = await startMiniCouncil(
    oneBodySystem((list, _url, base) =>
      list === 'paper'
        ? json({
            data: [1, 2, 3].map((n) => ({
              id: `${base}/oparl/paper/${n}`,
              type: 'https://schema.oparl.org/1.0/Paper',
              name: `Vorlage ${n}`,
              modified: '2024-01-01T10:00:00+01:00',
            })),
            links: {},
          })
        : undefined,
    ),
  );
  rt = await startSyncRuntime(bed);
}, 60_000);
afterAll(async () => {
  await rt?.close();
  await council?.close();
  await bed?.stop();
  await rm(file, { force: true });
});

describe('change feed in the sync function', () => {
  it('the events of a sync message are in the feed when the message ends, though fewer than a batch', async () => {
    const source = testSource('feed-runtime', council.systemUrl);
    const report = await rt.runDeps.engine(
      source,
      {
        runId: 'run-1',
        kind: 'full',
      },
      { deadlineMs: Date.now() + 120_000, runStartedAt: new Date() },
    );
    expect(report.failures).toEqual([]);
    const events = (await readFile(file, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ChangeEvent);
    const papers = events.filter((e) => e.type === 'paper');
    expect(papers.map((e) => e.kind)).toEqual(['new', 'new', 'new']);
    expect(events.length).toBeLessThan(10);
    expect(papers.every((e) => e.source === 'feed-runtime' && e.body?.endsWith('/oparl/body/1'))).toBe(true);
  }, 120_000);
});

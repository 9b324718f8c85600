import { DeleteMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DocumentItem } from '../../shared/documents';
import { isTakenDown } from '../../shared/documents/context';
import { documentId } from '../../shared/engine';
import { setBodyListed } from '../../shared/onboarding';
import type { OParlFetcher } from '../../shared/oparl/ports';
import { DocumentQueue } from '../../shared/store';
import { processSyncBody } from '../../shared/sync/batch';
import { TakedownRegistry, tombstoneBody } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { json, type MiniCouncil, oneBodySystem, startMiniCouncil } from '../support/mini-council';
import { loopbackFetcher } from '../support/oparl-harness';
import { deliver, NOW, oparlTestEngine, plan, runDepsOf } from '../support/sync-bed';
import { putActiveSource } from '../support/sync-runtime';
import { takedownDepsOf } from '../support/takedown';

/**
 * DOC-7 / ONB-4: an operator's `bodies unlist` that lands while a sync run is under way — after the
 * run read the body (still listed) and before it records a new file of that body. The window: the run
 * holds the body record from its body list (`upsertBody`) and passes its `listed` into every Documents
 * item it creates; the operator's command sets the `BODY#` record, then sweeps the body's Documents
 * items it finds. A file the run records after that sweep kept the run's old `listed: true`.
 *
 * Real peers: a loopback OParl server, the planner tick and the sync message through the real queue
 * (fauxqs), the sync run on the local DynamoDB (dynalite) and S3. The interleaving is deterministic: a
 * hook in the run's fetcher port unlists the body (the real operator command) just before the run
 * fetches the paper list that carries the new file.
 */

const MIN = 60_000;
const SOURCE = 'listing-race';

describe('DOC-7 / ONB-4: listing changed during a sync run', () => {
  let bed: AwsTestbed;
  let council: MiniCouncil;
  /** Papers the council lists now, each with its main file. */
  const papers: string[] = ['1'];
  const fileUrlOf = (base: string, n: string) => `${base}/files/${n}.pdf`;

  beforeAll(async () => {
    bed = await startAwsTestbed();
    council = await startMiniCouncil(
      oneBodySystem((list, _url, base) => {
        if (list !== 'paper') return undefined;
        return json({
          data: papers.map((n) => ({
            id: `${base}/oparl/paper/${n}`,
            type: 'https://schema.oparl.org/1.0/Paper',
            name: `Antrag ${n}`,
            modified: new Date(NOW.getTime() - 60 * MIN).toISOString(),
            mainFile: {
              id: `${base}/oparl/file/${n}`,
              type: 'https://schema.oparl.org/1.0/File',
              accessUrl: fileUrlOf(base, n),
              modified: new Date(NOW.getTime() - 60 * MIN).toISOString(),
            },
          })),
          links: {},
        });
      }),
    );
    await putActiveSource(bed, SOURCE, council.systemUrl);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([bed?.stop(), council?.close()]);
  });

  const tables = () => ({
    sources: bed.env.SOURCES_TABLE,
    state: bed.env.STATE_TABLE,
    documents: bed.env.DOCUMENTS_TABLE,
  });
  const setListed = (listed: boolean) =>
    setBodyListed(bed.clients.doc, tables(), 'stadt-quirksheim', { listed, sourceId: SOURCE, by: 'test' });

  /** One planner tick at `at` and the sync run it starts, through `fetcher`. */
  async function syncAt(at: Date, fetcher: OParlFetcher): Promise<void> {
    const tick = await plan(bed, at);
    expect(tick.started.map((s) => s.sourceId)).toEqual([SOURCE]);
    const record = await deliver(bed, SOURCE);
    const now = () => at;
    const result = await processSyncBody(
      { runDeps: runDepsOf(bed, oparlTestEngine(bed, fetcher, now), now) },
      record.body,
      15 * MIN,
    );
    expect(result).toMatchObject({ status: 'done' });
    await bed.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: bed.queues.syncQueueUrl, ReceiptHandle: record.receiptHandle }),
    );
  }

  const documentOf = async (n: string) =>
    new DocumentQueue({ doc: bed.clients.doc, table: bed.env.DOCUMENTS_TABLE }).get(
      documentId(fileUrlOf(council.base, n)),
    );

  it('DOC-7: a body unlisted after the run read it and before the run recorded its new file — the file is recorded unlisted', async () => {
    // The first run creates the body (unlisted, ONB-4) and paper 1's file; the operator lists the body.
    await syncAt(NOW, loopbackFetcher());
    expect(await setListed(true)).toMatchObject({ outcome: 'now-listed', documents: 1 });
    expect(await documentOf('1')).toMatchObject({ listed: true });

    // Paper 2 (a new file) appears; the operator unlists the body while the second run is under way:
    // after its body list (the run holds the body as listed), before its paper list.
    papers.push('2');
    const port = loopbackFetcher();
    let unlisted: Awaited<ReturnType<typeof setListed>> | undefined;
    const hooked: OParlFetcher = {
      async get(url, options) {
        if (unlisted === undefined && new URL(url).pathname.endsWith('/paper'))
          unlisted = await setListed(false);
        return port.get(url, options);
      },
    };
    await syncAt(new Date(NOW.getTime() + 24 * 60 * MIN), hooked);

    // The hook ran inside the run's window: the operator's sweep found paper 1's file only.
    expect(unlisted).toMatchObject({ outcome: 'now-unlisted', documents: 1 });
    expect(await documentOf('1')).toMatchObject({ listed: false });
    // The file the run recorded after the sweep follows the operator's choice, not the run's old read.
    expect(await documentOf('2')).toMatchObject({ listed: false });
  });

  it('OPT-2 / OPT-5: a body taken down while the run works — its new file is recorded unlisted and without the takedown flag, but the registry (written first) covers it', async () => {
    // The third run meets paper 3 (a new file) after `tombstone --body` ran in its window.
    await setListed(true);
    papers.push('3');
    const port = loopbackFetcher();
    let tombstoned = false;
    const hooked: OParlFetcher = {
      async get(url, options) {
        if (!tombstoned && new URL(url).pathname.endsWith('/paper')) {
          tombstoned = true;
          await tombstoneBody(takedownDepsOf(bed), 'stadt-quirksheim', { sourceId: SOURCE, by: 'test' });
        }
        return port.get(url, options);
      },
    };
    await syncAt(new Date(NOW.getTime() + 2 * 24 * 60 * MIN), hooked);
    expect(tombstoned).toBe(true);

    const item = (await documentOf('3')) as DocumentItem | undefined;
    // The same shape as the listing race: the item came after the takedown's sweep (no `takedownAt`) …
    expect(item).toMatchObject({ listed: false });
    expect(item?.takedownAt).toBeUndefined();
    // … and every document function reads the registry beside the flag: it is taken down for them all.
    const takedowns = await new TakedownRegistry(bed.clients.doc, bed.env.STATE_TABLE).load(SOURCE);
    expect(isTakenDown({ takedowns }, item as DocumentItem)).toBe(true);
  });
});

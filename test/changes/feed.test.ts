import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  batches,
  CHANGE_BATCH_MAX,
  CHANGE_DETAIL_TYPE,
  CHANGE_EVENT_SOURCE,
  type ChangeEvent,
  ChangeFeed,
  ChangeFeedUndeliveredError,
  eventBridgeSink,
  OUTBOX_PARTITION,
} from '../../shared/changes';
import {
  apiObjectPath,
  type MirrorIndexEntry,
  MirrorStore,
  type MirrorWrite,
  mirrorKey,
} from '../../shared/mirror';
import { METRICS, MetricsBuffer } from '../../shared/observability';
import { awsPurgeStore, sealTakenDown } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { type AwsFaults, injectAwsFaults } from '../support/aws-faults';
import { type EventBridgePeer, PUT_EVENTS_MAX, startEventBridgePeer } from '../support/eventbridge';
import { paperWrite } from '../support/mirror-api';
import { syncedTwoBodyCouncil } from '../support/oparl-harness';

const SOURCE = 'feed-src';
const BODY = 'https://ris.test/oparl/body/1';
const T0 = Date.parse('2025-03-01T08:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

function paper(n: number, name: string, when: string, deleted = false): MirrorWrite {
  return paperWrite(SOURCE, BODY, n, when, deleted ? { deleted: true } : { name });
}

describe('change feed on EventBridge: every commit of the mirror store is one event (issue 16)', () => {
  let peer: EventBridgePeer;
  let bed: AwsTestbed;
  let mirror: MirrorStore;

  beforeAll(async () => {
    peer = await startEventBridgePeer();
    bed = await startAwsTestbed({
      INGESTOR_CHANGE_BUS: 'default',
      INGESTOR_EVENTBRIDGE_ENDPOINT: peer.endpoint,
    });
    mirror = new MirrorStore(bed.clients, { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE });
  });
  afterAll(async () => {
    await bed.stop();
    await peer.stop();
  });
  afterEach(async () => {
    await bed.clients.changes?.flush();
    peer.entries.length = 0;
    peer.calls.length = 0;
  });

  it('new, modified, deleted, taken down and purged: kind, source, body, type, API id, origin id, S3 key', async () => {
    const first = paper(1, 'Antrag', at(0));
    await mirror.writeLive(first);
    await mirror.writeLive(paper(1, 'Antrag (geändert)', at(60)));
    const previous = (await mirror.lookup(SOURCE, [first])).values().next().value as MirrorIndexEntry;
    await mirror.writeTombstone(paper(1, '', at(120), true), previous);
    await mirror.writeLive(paper(2, 'Anfrage', at(130)));
    const second = (await mirror.lookup(SOURCE, [paper(2, '', '')])).values().next()
      .value as MirrorIndexEntry;
    const deps = { clients: bed.clients, bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE };
    await sealTakenDown(deps, second, { at: at(200), by: 'test' });
    // A repeated takedown is no new change.
    await sealTakenDown(deps, { ...second, takedown: undefined }, { at: at(260), by: 'test' });
    await awsPurgeStore({
      clients: bed.clients,
      bucket: bed.env.BUCKET,
      tables: {
        sources: bed.env.SOURCES_TABLE,
        state: bed.env.STATE_TABLE,
        documents: bed.env.DOCUMENTS_TABLE,
      },
      now: () => new Date(T0 + 300_000),
    }).deleteIndexEntry(SOURCE, 'paper', first.id);
    expect(peer.entries).toHaveLength(0); // batched: nothing leaves before a flush or a full batch
    const report = await bed.clients.changes?.flush();
    expect(report).toMatchObject({ published: 6, outboxed: 0 });

    expect(
      peer.entries.every((e) => e.Source === CHANGE_EVENT_SOURCE && e.DetailType === CHANGE_DETAIL_TYPE),
    ).toBe(true);
    expect(peer.entries.every((e) => e.EventBusName === 'default')).toBe(true);
    const details = peer.details();
    expect(details.map((d) => `${d.kind} ${d.originId}`)).toEqual([
      `new ${first.id}`,
      `modified ${first.id}`,
      `deleted ${first.id}`,
      `new ${second.id}`,
      `takendown ${second.id}`,
      `purged ${first.id}`,
    ]);
    expect(details[1]).toEqual({
      kind: 'modified',
      source: SOURCE,
      body: BODY,
      type: 'paper',
      apiId: apiObjectPath(SOURCE, 'paper', first.id),
      originId: first.id,
      key: mirrorKey(SOURCE, 'paper', first.id),
      at: at(60),
    });
    expect(details[4]?.at).toBe(at(200));
    expect(details[5]?.at).toBe(at(300));
  });

  it('batches of at most 10 entries per PutEvents call: a full batch leaves at once', async () => {
    for (let n = 0; n < 23; n += 1) await mirror.writeLive(paper(100 + n, `Vorlage ${n}`, at(n)));
    expect(peer.calls).toEqual([CHANGE_BATCH_MAX, CHANGE_BATCH_MAX]);
    await bed.clients.changes?.flush();
    expect(peer.calls).toEqual([10, 10, 3]);
    expect(Math.max(...peer.calls)).toBeLessThanOrEqual(PUT_EVENTS_MAX);
    expect(new Set(peer.details().map((d) => d.originId)).size).toBe(23);
    expect(batches([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
  });
});

describe('change feed faults: a failed publish loses nothing and never passes silently', () => {
  let peer: EventBridgePeer;
  let bed: AwsTestbed;
  let mirror: MirrorStore;
  let faults: AwsFaults;
  let feed: ChangeFeed;
  const metricLines: string[] = [];
  const metrics = new MetricsBuffer({ write: (line) => metricLines.push(line) });

  beforeAll(async () => {
    peer = await startEventBridgePeer();
    bed = await startAwsTestbed({
      INGESTOR_CHANGE_BUS: 'ingestor-changes',
      INGESTOR_EVENTBRIDGE_ENDPOINT: peer.endpoint,
    });
    faults = injectAwsFaults(bed.clients);
    if (!bed.clients.events) throw new Error('no EventBridge client although INGESTOR_CHANGE_BUS is set');
    // The feed as createFeedClients builds it, with a metrics buffer the test reads.
    feed = new ChangeFeed({
      sink: eventBridgeSink(bed.clients.events, 'ingestor-changes'),
      outbox: { doc: bed.clients.doc, table: bed.env.STATE_TABLE },
      metrics,
    });
    mirror = new MirrorStore(
      { ...bed.clients, changes: feed },
      { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE },
    );
  });
  afterAll(async () => {
    await bed.stop();
    await peer.stop();
  });

  async function outbox(): Promise<ChangeEvent[]> {
    const out = await bed.clients.doc.send(
      new QueryCommand({
        TableName: bed.env.STATE_TABLE,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': OUTBOX_PARTITION },
        ConsistentRead: true,
      }),
    );
    return (out.Items ?? []).map((i) => i.event as ChangeEvent);
  }

  it('EventBridge failing (fault injected by client middleware in front of the real peer): events go to the outbox, are counted, and the next flush delivers them', async () => {
    const down = faults.fail({ service: 'events', command: /PutEvents/, kind: 'server-error' });

    for (let n = 0; n < 3; n += 1) await mirror.writeLive(paper(200 + n, `Antrag ${n}`, at(n)));
    const failed = await feed.flush();
    expect(failed).toEqual({ published: 0, outboxed: 3, redelivered: 0 });
    expect(down.hits).toBeGreaterThan(0); // the SDK retried, each attempt met the fault
    expect(peer.entries).toHaveLength(0);
    expect((await outbox()).map((e) => e.originId).sort()).toEqual(
      [200, 201, 202].map((n) => `https://ris.test/oparl/paper/${n}`),
    );
    metrics.flush();
    expect(metricLines.join('\n')).toContain(METRICS.changeFeedEvents);
    expect(metricLines.join('\n')).toContain('outboxed');

    down.remove();
    await mirror.writeLive(paper(203, 'Antrag 3', at(10)));
    const recovered = await feed.flush();
    expect(recovered).toEqual({ published: 1, outboxed: 0, redelivered: 3 });
    expect(peer.details().map((d) => d.originId)).toHaveLength(4);
    expect(peer.entries.every((e) => e.EventBusName === 'ingestor-changes')).toBe(true);
    expect(await outbox()).toEqual([]);
  });

  it('EventBridge and the outbox both failing: flush throws CHANGE_FEED_UNDELIVERED and keeps the events for the next flush', async () => {
    faults.fail({ service: 'events', kind: 'server-error' });
    faults.fail({
      service: 'dynamodb',
      command: /^Put/,
      // The outbox's writes only (the input is marshalled by now: match the partition's name in it).
      when: (input) => JSON.stringify(input.Item ?? {}).includes(OUTBOX_PARTITION),
      kind: 'server-error',
    });
    const before = peer.entries.length;
    await mirror.writeLive(paper(300, 'Anfrage', at(20)));
    const error = await feed.flush().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChangeFeedUndeliveredError);
    expect((error as ChangeFeedUndeliveredError).code).toBe('CHANGE_FEED_UNDELIVERED');
    expect(peer.entries).toHaveLength(before);
    faults.clear();
    expect(await feed.flush()).toMatchObject({ published: 1 });
    expect(peer.details().at(-1)?.originId).toBe('https://ris.test/oparl/paper/300');
  });
});

describe('change feed locally: a JSON lines file (issue 16, `.data/changes.jsonl` in local mode)', () => {
  const file = join(tmpdir(), `changes-${process.pid}-${Date.now()}.jsonl`);
  let bed: AwsTestbed;
  beforeAll(async () => {
    bed = await startAwsTestbed({ INGESTOR_CHANGE_FILE: file });
  });
  afterAll(async () => {
    await bed.stop();
    await rm(file, { force: true });
  });

  it('a real sync of a council appends one `new` event per object it committed', async () => {
    const { council, h } = await syncedTwoBodyCouncil(bed, 'feedfile', T0, {
      objectsPerList: { paper: 12 },
      pageSize: 10,
    });
    try {
      await bed.clients.changes?.flush();
      const events = (await readFile(file, 'utf8'))
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as ChangeEvent);
      let entries = 0;
      for (const type of ['body', 'organization', 'person', 'meeting', 'paper', 'agendaitem', 'file']) {
        for await (const _ of h.mirror.listAll(h.source.sourceId, type)) entries += 1;
      }
      const ofSource = events.filter((e) => e.source === h.source.sourceId);
      expect(entries).toBeGreaterThan(24);
      expect(ofSource.filter((e) => e.kind === 'new').length).toBeGreaterThanOrEqual(entries);
      expect(new Set(ofSource.map((e) => `${e.type} ${e.originId}`)).size).toBe(ofSource.length);
      expect(ofSource.filter((e) => e.type === 'paper')).toHaveLength(24);
    } finally {
      await council.close();
    }
  });
});

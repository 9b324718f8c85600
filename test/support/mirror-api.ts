import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FakeCouncil } from '../../demo';
import { createFeedClients, destroyFeedClients } from '../../shared/changes';
import { bodySk, contentHash, SyncStateStore, sourcePartition } from '../../shared/engine';
import type { MirrorWrite } from '../../shared/mirror';
import { createMirrorApiHandler, createMirrorApiListener, MirrorReader } from '../../shared/mirror-api';
import { setBodyListed } from '../../shared/onboarding';
import { bodyKeyOf } from '../../shared/oparl';
import { mirrorItemTables, mirrorTablePlacement, putSourceItem } from '../../shared/store';
import type { AwsTestbed } from './aws';
import {
  type Harness,
  restoreSyncedCouncil,
  syncedCouncilTemplate,
  syncedTwoBodyCouncil,
  type TestClock,
} from './oparl-harness';
import { seedsFromSnapshot } from './store-snapshot';
import { countCalls } from './write-counter';

export const T0 = Date.parse('2024-07-01T10:00:00+02:00');

export interface ServedMirror {
  council: FakeCouncil;
  h: Harness;
  clock: TestClock;
  reader: MirrorReader;
  /** Every DynamoDB call of the API's reader (its own client). */
  dynamoCalls: ReturnType<typeof countCalls>;
  /** `http://127.0.0.1:<port>` — the API lives under `/oparl/v1`. */
  base: string;
  systemUrl: string;
  tables: { sources: string; state: string; documents: string };
  close(): Promise<void>;
}

/**
 * The API (real handler, node:http on loopback) over the local peers' tables and bucket. The reader has
 * clients of its own, so `dynamoCalls` counts every DynamoDB call it makes and nothing else (the sync's
 * writes go through the testbed's clients); they are destroyed with the server.
 */
export async function serveApi(
  bed: AwsTestbed,
  now: () => number = Date.now,
): Promise<{
  server: Server;
  reader: MirrorReader;
  base: string;
  dynamoCalls: ReturnType<typeof countCalls>;
}> {
  const clients = createFeedClients(bed.env);
  const dynamoCalls = countCalls(clients.dynamo);
  const reader = new MirrorReader(
    clients,
    {
      bucket: bed.env.BUCKET,
      // Issue 28: the mirror's items where the testbed's phase says (MIRROR_TABLE_PHASE, default State).
      tables: {
        sources: bed.env.SOURCES_TABLE,
        state: bed.env.STATE_TABLE,
        mirror: mirrorTablePlacement(bed.env),
      },
    },
    now,
  );
  let listener: ReturnType<typeof createMirrorApiListener> | undefined;
  const server = createServer((req, res) => listener?.(req, res));
  server.on('close', () => destroyFeedClients(clients));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  listener = createMirrorApiListener(createMirrorApiHandler({ reader, baseUrl: base }));
  return { server, reader, base, dynamoCalls };
}

/** Stops an API server of `serveApi`, its kept-alive connections too. */
export async function stopServer(server: Server): Promise<void> {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
}

/** A fresh API instance (its own caches) for the duration of `run`. */
export async function withApi<T>(
  bed: AwsTestbed,
  run: (api: Awaited<ReturnType<typeof serveApi>>) => Promise<T>,
): Promise<T> {
  const api = await serveApi(bed);
  try {
    return await run(api);
  } finally {
    await stopServer(api.server);
  }
}

/**
 * The mirror of the embedded-object tests (takedown): three papers and three meetings, so each has several
 * files (main, auxiliary) and agenda items. The lists that embed none of them hold three objects each
 * instead of the fake council’s twelve: 45 objects per body to sync instead of 99 (issue 29 item 5).
 */
export const EMBEDDING_MIRROR = {
  objectsPerList: {
    paper: 3,
    meeting: 3,
    file: 12,
    agendaItem: 9,
    organization: 3,
    person: 3,
    legislativeTerm: 3,
    membership: 3,
    consultation: 3,
    locationList: 3,
  },
  pageSize: 5,
} as const;

/**
 * A real mirror behind the API: the fake council (two bodies; by default 45 papers, so paper lists page) fully
 * synced by the real engine, the source stored, its first body listed (ONB-4) and the second not.
 */
export async function seedServedMirror(
  bed: AwsTestbed,
  prefix: string,
  shape: Parameters<typeof syncedTwoBodyCouncil>[3] = { objectsPerList: { paper: 45 }, pageSize: 10 },
): Promise<ServedMirror> {
  const { council, h, clock } = await syncedTwoBodyCouncil(bed, prefix, T0, shape);
  await setBodyListed(bed.clients.doc, tablesOf(bed), 'koeln', {
    listed: true,
    sourceId: h.source.sourceId,
    by: 'test',
  });
  return served(bed, council, h, clock);
}

/** The mirror API over the testbed, for a synced council (the seed's or a restored one). */
async function served(
  bed: AwsTestbed,
  council: FakeCouncil,
  h: Harness,
  clock: TestClock,
): Promise<ServedMirror> {
  // The reader's clock is the test's: its bodies cache (BODIES_TTL_MS) expires when a test advances it.
  const { server, reader, base, dynamoCalls } = await serveApi(bed, () => clock.now().getTime());
  return {
    council,
    h,
    clock,
    reader,
    dynamoCalls,
    base,
    systemUrl: `${base}/oparl/v1/system`,
    tables: tablesOf(bed),
    async close() {
      await stopServer(server);
      await council.close();
    },
  };
}

function tablesOf(bed: AwsTestbed): ServedMirror['tables'] {
  return { sources: bed.env.SOURCES_TABLE, state: bed.env.STATE_TABLE, documents: bed.env.DOCUMENTS_TABLE };
}

/**
 * `seed(prefix)` for a describe block's served mirrors of one shape: the first syncs
 * (`seedServedMirror`), later ones put its snapshot back and start its council again
 * (`seedsFromSnapshot`, as `seededTestbed` in test/support/takedown.ts does); each gets an API server
 * of its own. Every mirror is closed after the block.
 */
export function servedMirrorSeeds(
  bed: AwsTestbed,
  shape: Parameters<typeof syncedTwoBodyCouncil>[3],
): (prefix: string) => Promise<ServedMirror> {
  return seedsFromSnapshot({
    fresh: (prefix) => seedServedMirror(bed, prefix, shape),
    template: (m: ServedMirror) => syncedCouncilTemplate(bed, m, shape),
    restore: async (template) => {
      const restored = await restoreSyncedCouncil(bed, template);
      return restored && served(bed, restored.council, restored.h, restored.clock);
    },
    close: (m) => m.close(),
  });
}

export async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    // Error answers (404, 405) are plain text.
    json:
      text && res.status !== 304 && /json/.test(res.headers.get('content-type') ?? '')
        ? JSON.parse(text)
        : {},
  };
}

/** Every object of a list, following `links.next` to the end; also the number of pages read. */
export async function walkList(url: string): Promise<{ objects: Record<string, unknown>[]; pages: number }> {
  const objects: Record<string, unknown>[] = [];
  let next: string | undefined = url;
  let pages = 0;
  while (next !== undefined) {
    const page = await getJson(next);
    if (page.status !== 200) throw new Error(`HTTP ${page.status} for ${next}`);
    pages += 1;
    objects.push(...(page.json.data as Record<string, unknown>[]));
    next = (page.json.links as { next?: string }).next;
  }
  return { objects, pages };
}

/**
 * A source with one listed body (ONB-4) and nothing mirrored yet, for tests and the bench that write the
 * mirror store directly (as the sync writes it) instead of syncing a council.
 */
export async function seedListedBody(
  bed: Pick<AwsTestbed, 'clients' | 'env'>,
  sourceId: string,
  bodyId: string,
  at: string = new Date().toISOString(),
): Promise<void> {
  const origin = new URL(bodyId);
  await putSourceItem(bed.clients.doc, bed.env.SOURCES_TABLE, {
    sourceId,
    systemUrl: `${origin.origin}/oparl/system`,
  });
  await new SyncStateStore(bed.clients, bed.env.STATE_TABLE, sourceId).upsertBody(
    { bodyKey: bodyKeyOf(bodyId), id: bodyId, name: sourceId, lists: {}, lastSeenAt: at },
    'test',
  );
  await bed.clients.doc.send(
    new UpdateCommand({
      TableName: bed.env.STATE_TABLE,
      Key: { pk: sourcePartition(sourceId), sk: bodySk(bodyKeyOf(bodyId)) },
      UpdateExpression: 'SET listed = :t',
      ExpressionAttributeValues: { ':t': true },
    }),
  );
}

/** A paper of `bodyId` as the sync hands it to the mirror store: id `<body's base>/paper/<n>`. */
export function paperWrite(
  sourceId: string,
  bodyId: string,
  n: number,
  fetchedAt: string,
  fields: Record<string, unknown> = {},
): MirrorWrite {
  const id = `${bodyId.replace(/\/body\/[^/]+$/, '')}/paper/${n}`;
  const object = { id, type: 'https://schema.oparl.org/1.1/Paper', name: `Vorlage ${n}`, ...fields };
  return {
    sourceId,
    type: 'paper',
    id,
    object,
    sourceUrl: `${bodyId}/paper`,
    fetchedAt,
    bodyId,
    hash: contentHash(object),
  };
}

/**
 * Text brotli cannot shrink much (base64 of a SHA-256 chain, ≈ 6 bits a character): a field that keeps
 * an object too large to ride inline although its copy is packed (shared/store inline-copy.ts).
 */
export function incompressibleText(chars: number, seed = 'inline'): string {
  let out = '';
  let block = createHash('sha256').update(seed).digest();
  while (out.length < chars) {
    out += block.toString('base64');
    block = createHash('sha256').update(block).digest();
  }
  return out.slice(0, chars);
}

/**
 * Every object item of the testbed's mirror (the index items of every source and type, `MIRROR#…`), as
 * stored, from the table its phase reads (MIRROR_TABLE_PHASE, default State): one Scan, paged.
 */
export async function mirrorObjectItems(bed: AwsTestbed): Promise<Record<string, unknown>[]> {
  const table = mirrorItemTables(bed.env.STATE_TABLE, mirrorTablePlacement(bed.env)).read;
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await bed.clients.doc.send(
      new ScanCommand({
        TableName: table,
        FilterExpression: 'begins_with(pk, :p)',
        ExpressionAttributeValues: { ':p': 'MIRROR#' },
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

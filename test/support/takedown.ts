import { PutObjectCommand } from '@aws-sdk/client-s3';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import type { FakeCouncil } from '../../demo';
import { MIRROR_TYPES, type MirrorIndexEntry } from '../../shared/mirror';
import { fileKey, textKey } from '../../shared/mirror/keys';
import { listBodies } from '../../shared/onboarding';
import type { AwsClients } from '../../shared/store';
import type { TakedownDeps } from '../../shared/takedown';
import { type AwsTestbed, startAwsTestbed } from './aws';
import {
  type Harness,
  restoreSyncedCouncil,
  syncedCouncilTemplate,
  syncedTwoBodyCouncil,
} from './oparl-harness';
import { seedsFromSnapshot } from './store-snapshot';

const T0 = Date.parse('2024-07-01T10:00:00+02:00');

/** The seeded council: two bodies, a few objects per list. */
const SEED_SHAPE = { objectsPerList: 3, pageSize: 5 };

export interface SeededSource {
  council: FakeCouncil;
  h: Harness;
  sourceId: string;
  /** Slug → body id of the two bodies. */
  bodies: { slug: string; id: string }[];
  deps: TakedownDeps;
  /** Our copies written for the first body's documents. */
  copies: string[];
}

/**
 * A real mirror to take down: the fake council (two bodies, a few objects per list) fully synced by
 * the real engine into the local peers, the source stored in the Sources table, and for every
 * document of the first body a stored copy (`files/…`) and a text (`text/…`), named on its item as
 * the document cache names them.
 */
export async function seedSyncedSource(bed: AwsTestbed, prefix: string): Promise<SeededSource> {
  const { council, h } = await syncedTwoBodyCouncil(bed, prefix, T0, SEED_SHAPE);
  const deps = takedownDepsOf(bed);
  const rows = await listBodies(bed.clients.doc, deps.tables, h.source.sourceId);
  const bodies = rows.map((r) => ({ slug: r.slug, id: r.id }));
  const first = bodies.find((b) => b.slug === 'koeln');
  if (!first) throw new Error(`unexpected slugs ${rows.map((r) => r.slug).join(', ')}`);
  const docs = await documentsOf(bed, h.source.sourceId, first.id);
  const copies: string[] = [];
  for (const d of docs) {
    const docId = String(d.docId);
    const stored = fileKey(h.source.sourceId, docId);
    const text = textKey(h.source.sourceId, docId);
    await bed.clients.s3.send(
      new PutObjectCommand({ Bucket: bed.env.BUCKET, Key: stored, Body: '%PDF-1.4' }),
    );
    await bed.clients.s3.send(new PutObjectCommand({ Bucket: bed.env.BUCKET, Key: text, Body: 'Text' }));
    await bed.clients.doc.send(
      new UpdateCommand({
        TableName: bed.env.DOCUMENTS_TABLE,
        Key: { docId },
        UpdateExpression: 'SET storedKey = :s, textKey = :t, #st = :stored',
        ExpressionAttributeNames: { '#st': 'state' },
        ExpressionAttributeValues: { ':s': stored, ':t': text, ':stored': 'stored' },
      }),
    );
    copies.push(stored, text);
  }
  return { council, h, sourceId: h.source.sourceId, bodies, deps, copies };
}

/** The takedown commands' dependencies on the testbed's peers. */
export function takedownDepsOf(bed: AwsTestbed): TakedownDeps {
  return {
    clients: bed.clients,
    tables: {
      sources: bed.env.SOURCES_TABLE,
      state: bed.env.STATE_TABLE,
      documents: bed.env.DOCUMENTS_TABLE,
    },
    bucket: bed.env.BUCKET,
  };
}

export async function documentsOf(bed: AwsTestbed, sourceId: string, bodyId?: string) {
  const out = await bed.clients.doc.send(
    new QueryCommand({
      TableName: bed.env.DOCUMENTS_TABLE,
      IndexName: 'bySource',
      KeyConditionExpression: 'sourceId = :s',
      ExpressionAttributeValues: { ':s': sourceId },
    }),
  );
  return (out.Items ?? []).filter((i) => bodyId === undefined || i.bodyId === bodyId);
}

/** Index entries of a source, by type, optionally of one body (tombstones included). */
export async function indexEntries(h: Harness, bodyId?: string): Promise<MirrorIndexEntry[]> {
  const all: MirrorIndexEntry[] = [];
  for (const type of MIRROR_TYPES) {
    for await (const e of h.mirror.listAll(h.source.sourceId, type, bodyId ? { bodyId } : {})) all.push(e);
  }
  return all;
}

export async function liveEntries(h: Harness, bodyId?: string): Promise<MirrorIndexEntry[]> {
  const all: MirrorIndexEntry[] = [];
  for (const type of MIRROR_TYPES) {
    for await (const e of h.mirror.listLive(h.source.sourceId, type, bodyId ? { bodyId } : {})) all.push(e);
  }
  return all;
}

export { T0 };

/**
 * Fault injection as client middleware around the real S3 peer: `action` runs once, awaited, just
 * before the first write to `key` that `matches` goes out — the moment a writer has done its work and
 * is about to commit it. Returns how often it fired (0 or 1) and `run`'s result.
 */
export async function beforeFirstWriteTo<T>(
  bed: AwsTestbed,
  key: string,
  action: () => Promise<unknown>,
  run: () => Promise<T>,
  matches: (input: { Metadata?: Record<string, string> }, commandName: string) => boolean = () => true,
): Promise<{ fired: number; result: T }> {
  let fired = 0;
  const name = `before-write-${key}-${Date.now()}`;
  bed.clients.s3.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { Key?: string; Metadata?: Record<string, string> };
      if (fired === 0 && input.Key === key && matches(input, String(context.commandName))) {
        fired += 1;
        await action();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    const result = await run();
    return { fired, result };
  } finally {
    bed.clients.s3.middlewareStack.remove(name);
  }
}

/** Sets and removes fields of one Documents item (puts a document back into a queue for a test). */
export async function setDocument(
  bed: AwsTestbed,
  docId: string,
  set: Record<string, unknown>,
  remove: string[] = [],
): Promise<void> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets = Object.entries(set).map(([field, value], i) => {
    names[`#s${i}`] = field;
    values[`:s${i}`] = value;
    return `#s${i} = :s${i}`;
  });
  const removes = remove.map((field, i) => {
    names[`#r${i}`] = field;
    return `#r${i}`;
  });
  await bed.clients.doc.send(
    new UpdateCommand({
      TableName: bed.env.DOCUMENTS_TABLE,
      Key: { docId },
      UpdateExpression: [
        sets.length ? `SET ${sets.join(', ')}` : '',
        removes.length ? `REMOVE ${removes.join(', ')}` : '',
      ]
        .filter(Boolean)
        .join(' '),
      ExpressionAttributeNames: names,
      ...(sets.length ? { ExpressionAttributeValues: values } : {}),
    }),
  );
}

/** `run` with `afterRecorded` throwing: a takedown command killed right after its registry items. */
export async function killedAfterRecorded(
  run: (afterRecorded: () => never) => Promise<unknown>,
): Promise<void> {
  let killed = false;
  await run(() => {
    killed = true;
    throw new Error('simulated kill after the registry item');
  }).catch((error: unknown) => {
    if (!killed) throw error;
  });
  if (!killed) throw new Error('the command never reached its registry step');
}

/**
 * One local AWS testbed for a describe block, and `seed` for a source synced into it; the councils and
 * the testbed are closed after the block. `koeln` is the first body of every seeded source.
 *
 * Only the block's first seed syncs: what it leaves is kept as a snapshot of the peers, and every
 * later seed puts it back and starts the same council again on the same port at the same clock
 * (`seedsFromSnapshot`, `restoreSyncedCouncil`) — the same source, stored items and objects, council,
 * fetcher counts and request log as after a fresh seed (test/takedown/seed-snapshot.test.ts compares
 * them with a fresh sync). A test's seed thus removes whatever earlier tests left in the peers. A
 * second seed within one test syncs a source of its own.
 */
export function seededTestbed(): {
  readonly bed: AwsTestbed;
  seed(prefix: string): Promise<{ s: SeededSource; koeln: { slug: string; id: string } }>;
} {
  let bed: AwsTestbed | undefined;
  beforeAll(async () => {
    bed = await startAwsTestbed();
  });
  // Registered before the seeds' own: vitest runs afterAll hooks last-registered first, councils first.
  afterAll(async () => {
    await bed?.stop();
  });
  const current = (): AwsTestbed => {
    if (!bed) throw new Error('testbed not started');
    return bed;
  };
  const seed = seedsFromSnapshot({
    fresh: (prefix) => seedSyncedSource(current(), prefix),
    template: async (s: SeededSource) => ({
      council: await syncedCouncilTemplate(current(), s, SEED_SHAPE),
      bodies: s.bodies,
      copies: s.copies,
    }),
    restore: async (template): Promise<SeededSource | undefined> => {
      const restored = await restoreSyncedCouncil(current(), template.council);
      if (restored === undefined) return undefined;
      return {
        council: restored.council,
        h: restored.h,
        sourceId: restored.h.source.sourceId,
        bodies: template.bodies.map((b) => ({ ...b })),
        deps: takedownDepsOf(current()),
        copies: [...template.copies],
      };
    },
    close: (s) => s.council.close(),
  });
  return {
    get bed(): AwsTestbed {
      return current();
    },
    async seed(prefix) {
      const s = await seed(prefix);
      const koeln = s.bodies.find((b) => b.slug === 'koeln');
      if (!koeln) throw new Error('no koeln');
      return { s, koeln };
    },
  };
}

/** One step of a sync's page, as the calls its own clients send show it. */
export interface PagePoint {
  service: 'dynamodb' | 's3';
  /** SDK command names (the document client's and the DynamoDB client's both pass). */
  command: RegExp;
  /** On the call's input as JSON text (key values appear in it, marshalled or not). */
  when: (input: string) => boolean;
  /** Right before the call goes out, or right after its answer came back. */
  at: 'before' | 'after';
}

/**
 * Fault injection as client middleware on one sync's own clients (a simulated instance of its own),
 * around the real local peers: `action` runs once, awaited, at the first call that matches `point` —
 * the sync stands still at that step of its page while, say, an operator's command runs to its end on
 * other clients (whose calls are never paused). `fired` tells whether the step was reached. `times`:
 * at each of the first that many matching calls instead (an operator who keeps interfering).
 */
export function pauseAt(
  clients: Pick<AwsClients, 'dynamo' | 's3'>,
  point: PagePoint,
  action: () => Promise<unknown>,
  times = 1,
): { readonly fired: number; remove(): void } {
  let fired = 0;
  const name = `pause-at-${point.service}-${Date.now()}-${Math.random()}`;
  const stack = (point.service === 's3' ? clients.s3 : clients.dynamo).middlewareStack as unknown as {
    add(mw: unknown, options: Record<string, unknown>): void;
    remove(name: string): boolean;
  };
  stack.add(
    (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
      async (args: { input?: unknown }) => {
        const hit =
          fired < times &&
          point.command.test(context.commandName ?? '') &&
          point.when(JSON.stringify(args.input ?? {}));
        if (hit) fired += 1;
        if (hit && point.at === 'before') await action();
        const out = await next(args);
        if (hit && point.at === 'after') await action();
        return out;
      },
    { step: 'initialize', name },
  );
  return {
    get fired() {
      return fired;
    },
    remove: () => void stack.remove(name),
  };
}

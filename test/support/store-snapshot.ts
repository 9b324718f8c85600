import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  DescribeTableCommand,
  ListTablesCommand,
  ScanCommand,
  type WriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  GetObjectCommand,
  GetObjectTaggingCommand,
  ListBucketsCommand,
  ListObjectsV2Command,
} from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand, ListQueuesCommand, PurgeQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeEach } from 'vitest';
import type { AwsTestbed } from './aws';

const execFileAsync = promisify(execFile);

/**
 * Everything a testbed's local peers hold, taken once after an expensive seed (a full sync) and put
 * back before each test that wants that seed: the test starts from the stored state of a fresh seed
 * for the price of a few writes. DynamoDB's tables are read and written through the protocol (raw
 * attribute values, so numbers, sets and binaries come back as they were); S3's buckets are copied
 * as s3rver's folders (`AwsPeers.s3Directory`; s3rver reads them on every request and caches nothing):
 * ninety PutObjects cost ≈ 0.85 s of this process's CPU per restore (s3rver runs in it), a folder copy
 * ≈ 60 ms. Queues are state too: a snapshot holds only empty queues (a seed that leaves messages is
 * refused), and a restore empties them. `storeDigest` compares two states through the protocols.
 */
export interface StoreSnapshot {
  tables: TableSnapshot[];
  /** A copy of s3rver's folder, inside the testbed's temporary folder (removed when its peers stop). */
  s3Copy: string;
}

interface TableSnapshot {
  name: string;
  /** Key attribute names (partition, then sort). */
  keys: string[];
  items: Record<string, AttributeValue>[];
}

/** BatchWriteItem's limit per call. */
const BATCH_WRITE_MAX = 25;

export class SnapshotRefused extends Error {
  readonly code = 'SNAPSHOT_REFUSED';
}

export async function takeStoreSnapshot(bed: AwsTestbed): Promise<StoreSnapshot> {
  const queues = await queueUrls(bed);
  for (const url of queues) {
    const out = await bed.clients.sqs.send(
      new GetQueueAttributesCommand({
        QueueUrl: url,
        AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
      }),
    );
    const held =
      Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) +
      Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    if (held > 0) throw new SnapshotRefused(`queue ${url} holds ${held} messages; a restore would lose them`);
  }
  const tables: TableSnapshot[] = [];
  for (const name of await tableNames(bed)) {
    tables.push({ name, keys: await keyNames(bed, name), items: await scanAll(bed, name) });
  }
  const s3Copy = join(await mkdtemp(join(dirname(bed.peers.s3Directory), 's3-snapshot-')), 's3');
  await copyFolder(bed.peers.s3Directory, s3Copy);
  return { tables, s3Copy };
}

/**
 * Puts the snapshot back: items the snapshot lacks are deleted, changed ones written whole, unchanged
 * ones left; tables created after the snapshot are emptied; the buckets' folder is replaced by the
 * copy; queues are emptied. Call it between tests, with no request of the test in flight.
 */
export async function restoreStoreSnapshot(bed: AwsTestbed, snapshot: StoreSnapshot): Promise<void> {
  for (const url of await queueUrls(bed))
    await bed.clients.sqs.send(new PurgeQueueCommand({ QueueUrl: url }));
  const byName = new Map(snapshot.tables.map((t) => [t.name, t]));
  for (const name of await tableNames(bed)) {
    const table = byName.get(name) ?? { name, keys: await keyNames(bed, name), items: [] };
    const wanted = new Map(table.items.map((item) => [keyOf(table.keys, item), item]));
    const writes: WriteRequest[] = [];
    for (const item of await scanAll(bed, name)) {
      const key = keyOf(table.keys, item);
      const want = wanted.get(key);
      // Unchanged items stay; changed ones are overwritten whole below; extra ones go.
      if (want !== undefined && canonicalJson(want) === canonicalJson(item)) wanted.delete(key);
      else if (want === undefined) {
        const itemKey: Record<string, AttributeValue> = {};
        for (const k of table.keys) itemKey[k] = item[k] as AttributeValue;
        writes.push({ DeleteRequest: { Key: itemKey } });
      }
    }
    for (const item of wanted.values()) writes.push({ PutRequest: { Item: item } });
    await batchWrite(bed, name, writes);
  }
  // Moved aside at once (a rename), removed while the copy is made.
  const aside = `${bed.peers.s3Directory}-restored-${Date.now()}-${Math.random().toString(36).slice(2)}`;
  await rename(bed.peers.s3Directory, aside);
  await Promise.all([
    rm(aside, { recursive: true, force: true }),
    copyFolder(snapshot.s3Copy, bed.peers.s3Directory),
  ]);
}

/**
 * One digest of all a testbed's peers hold, read through their protocols, independent of listing
 * order: equal digests mean equal stored state — every item, and every object's body, content type
 * and encoding, metadata and tags.
 */
export async function storeDigest(
  bed: AwsTestbed,
): Promise<{ digest: string; items: number; objects: number }> {
  const lines: string[] = [];
  let items = 0;
  let objects = 0;
  for (const name of await tableNames(bed)) {
    for (const item of await scanAll(bed, name)) {
      lines.push(`item ${name} ${canonicalJson(item)}`);
      items += 1;
    }
  }
  for (const bucket of await bucketNames(bed)) {
    for (const key of await objectKeys(bed, bucket)) {
      lines.push(await objectLine(bed, bucket, key));
      objects += 1;
    }
  }
  return { digest: createHash('sha256').update(lines.sort().join('\n')).digest('hex'), items, objects };
}

/**
 * `cp -a`: a seeded bucket folder is ≈ 270 files in 25 folders; node's `fs.cp` took 0.5–1.1 s for them
 * on a loaded 2-core machine, `cp -a` ≈ 60 ms.
 */
async function copyFolder(from: string, to: string): Promise<void> {
  await execFileAsync('cp', ['-a', from, to]);
}

/**
 * Seeds of a describe block from one snapshot: the block's first seed is made afresh and kept as a
 * template; every later seed is `restore`d from it, after the seed still holding what the template
 * needs (its council's port) is `close`d. A second seed within one test is made afresh (the first
 * stays in use), and so is one whose restore declines. Every seed is closed after the block.
 */
export function seedsFromSnapshot<S, T>(steps: {
  fresh(prefix: string): Promise<S>;
  template(seed: S): Promise<T>;
  restore(template: T): Promise<S | undefined>;
  close(seed: S): Promise<void>;
}): (prefix: string) => Promise<S> {
  const open: S[] = [];
  let template: T | undefined;
  let holder: S | undefined;
  let seededInTest = false;
  beforeEach(() => {
    seededInTest = false;
  });
  afterAll(async () => {
    await Promise.all(open.map((s) => steps.close(s)));
  });
  return async (prefix) => {
    const again = seededInTest;
    seededInTest = true;
    if (template !== undefined && !again) {
      if (holder !== undefined) {
        open.splice(open.indexOf(holder), 1);
        await steps.close(holder);
        holder = undefined;
      }
      const restored = await steps.restore(template);
      if (restored !== undefined) {
        holder = restored;
        open.push(restored);
        return restored;
      }
    }
    const fresh = await steps.fresh(prefix);
    open.push(fresh);
    if (template === undefined) {
      template = await steps.template(fresh);
      holder = fresh;
    }
    return fresh;
  };
}

async function tableNames(bed: AwsTestbed): Promise<string[]> {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const out = await bed.clients.dynamo.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(out.TableNames ?? []));
    start = out.LastEvaluatedTableName;
  } while (start);
  return names;
}

async function keyNames(bed: AwsTestbed, table: string): Promise<string[]> {
  const described = await bed.clients.dynamo.send(new DescribeTableCommand({ TableName: table }));
  return [...(described.Table?.KeySchema ?? [])]
    .sort((a, b) => (a.KeyType === 'HASH' ? -1 : b.KeyType === 'HASH' ? 1 : 0))
    .map((k) => String(k.AttributeName));
}

async function scanAll(bed: AwsTestbed, table: string): Promise<Record<string, AttributeValue>[]> {
  const items: Record<string, AttributeValue>[] = [];
  let start: Record<string, AttributeValue> | undefined;
  do {
    const out = await bed.clients.dynamo.send(
      new ScanCommand({ TableName: table, ConsistentRead: true, ExclusiveStartKey: start }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

async function batchWrite(bed: AwsTestbed, table: string, writes: WriteRequest[]): Promise<void> {
  for (let i = 0; i < writes.length; i += BATCH_WRITE_MAX) {
    let pending: WriteRequest[] | undefined = writes.slice(i, i + BATCH_WRITE_MAX);
    while (pending && pending.length > 0) {
      const out: BatchWriteItemCommandOutput = await bed.clients.dynamo.send(
        new BatchWriteItemCommand({ RequestItems: { [table]: pending } }),
      );
      pending = out.UnprocessedItems?.[table];
    }
  }
}

async function bucketNames(bed: AwsTestbed): Promise<string[]> {
  const out = await bed.clients.s3.send(new ListBucketsCommand({}));
  return (out.Buckets ?? []).map((b) => String(b.Name));
}

async function objectKeys(bed: AwsTestbed, bucket: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const out = await bed.clients.s3.send(
      new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }),
    );
    keys.push(...(out.Contents ?? []).map((o) => String(o.Key)));
    token = out.IsTruncated ? out.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

async function objectLine(bed: AwsTestbed, bucket: string, key: string): Promise<string> {
  const out = await bed.clients.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  const tags = await bed.clients.s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key: key }));
  const body = await (out.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray();
  const tagging = (tags.TagSet ?? []).map((t) => `${t.Key}=${t.Value}`).sort();
  return [
    'object',
    bucket,
    key,
    createHash('sha256').update(body).digest('hex'),
    out.ContentType ?? '',
    out.ContentEncoding ?? '',
    canonicalJson(out.Metadata ?? {}),
    canonicalJson(tagging),
  ].join(' ');
}

async function queueUrls(bed: AwsTestbed): Promise<string[]> {
  const out = await bed.clients.sqs.send(new ListQueuesCommand({}));
  return out.QueueUrls ?? [];
}

function keyOf(keys: string[], item: Record<string, AttributeValue>): string {
  return canonicalJson(keys.map((k) => item[k]));
}

/** JSON with object keys sorted and binaries as base64, so equal values give equal text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
    // Sets have no order: the same set may come back listed otherwise.
    if (isSet(v))
      return Object.fromEntries(Object.entries(v).map(([type, members]) => [type, sortedSet(members)]));
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    }
    return v;
  });
}

function isSet(v: unknown): v is Record<'SS' | 'NS' | 'BS', unknown[]> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const keys = Object.keys(v);
  return keys.length === 1 && ['SS', 'NS', 'BS'].includes(keys[0] as string);
}

function sortedSet(members: unknown[]): string[] {
  return members.map((m) => (m instanceof Uint8Array ? Buffer.from(m).toString('base64') : String(m))).sort();
}

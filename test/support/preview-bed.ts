import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { parseEnv } from '../../shared/config/env';
import type { SourceItem } from '../../shared/config/source';
import { bodyKeyOf } from '../../shared/documents/keys';
import { bodySk, documentId, recordDocument, sourcePartition } from '../../shared/engine';
import type { FetchEvent } from '../../shared/fetch';
import { apiIdHash, fileKey, indexPartition } from '../../shared/mirror/keys';
import { createTestResolver } from '../../shared/net';
import { composePreview, createPreviewListener, type PreviewRuntime } from '../../shared/preview';
import { patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { type AwsTestbed, startAwsTestbed } from './aws';
import { type RedisPeer, startRedisPeer } from './redis';

/**
 * Test kit of the preview: local AWS peers, a real redis-server behind the Upstash REST adapter (host
 * slots and PRV-2 limits shared through it, as in AWS), the preview runtime on real time, and the
 * endpoint on a loopback HTTP server. `x-test-visitor` names the visitor here only (the real adapters
 * take the socket / Function URL address), so tests do not share one visitor's PRV-2 budget.
 */
export interface PreviewBed {
  aws: AwsTestbed;
  redis: RedisPeer;
  runtime: PreviewRuntime;
  server: Server;
  url: string;
  events: FetchEvent[];
  close(): Promise<void>;
}

export async function startPreviewBed(): Promise<PreviewBed> {
  const aws = await startAwsTestbed();
  const redis = await startRedisPeer();
  const env = parseEnv({
    ...aws.peers.env,
    INGESTOR_ALLOW_LOOPBACK: 'true',
    UPSTASH_REDIS_REST_URL: redis.adapter.url,
    UPSTASH_REDIS_REST_TOKEN: redis.adapter.token,
  });
  const events: FetchEvent[] = [];
  const runtime = await composePreview(env, {
    clients: aws.clients,
    resolver: createTestResolver(),
    onRequest: (event) => events.push(event),
  });
  const server = createServer(
    createPreviewListener(runtime.handler, {
      visitorOf: (req) => String(req.headers['x-test-visitor'] ?? req.socket.remoteAddress),
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    aws,
    redis,
    runtime,
    server,
    url,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await runtime.close();
      await redis.stop();
      await aws.stop();
    },
  };
}

export async function putSource(
  bed: PreviewBed,
  item: Partial<SourceItem> & { sourceId: string; systemUrl: string },
): Promise<void> {
  await putSourceItem(bed.aws.clients.doc, bed.aws.env.SOURCES_TABLE, { active: true, ...item });
}

export async function putBody(bed: PreviewBed, sourceId: string, body: { id: string; listed: boolean }) {
  const bodyKey = bodyKeyOf(body.id);
  const at = new Date().toISOString();
  await bed.aws.clients.doc.send(
    new PutCommand({
      TableName: bed.aws.env.STATE_TABLE,
      Item: {
        pk: sourcePartition(sourceId),
        sk: bodySk(bodyKey),
        bodyKey,
        id: body.id,
        name: 'Stadt',
        slug: `stadt-${bodyKey.slice(0, 6)}`,
        listed: body.listed,
        lists: {},
        firstSeenAt: at,
        lastSeenAt: at,
      },
    }),
  );
}

/** A file as the sync records it (`pending`); returns its docId (the preview's id). */
export async function recordFile(
  bed: PreviewBed,
  fields: {
    sourceId: string;
    bodyId: string;
    url: string;
    listed: boolean;
    fileId?: string;
    /** The File's own `downloadUrl` at the origin, when it has one. */
    downloadUrl?: string;
  },
): Promise<string> {
  await recordDocument(
    bed.aws.clients,
    bed.aws.env.DOCUMENTS_TABLE,
    {
      id: fields.fileId ?? `${fields.url}#file`,
      type: 'https://schema.oparl.org/1.1/File',
      accessUrl: fields.url,
      ...(fields.downloadUrl === undefined ? {} : { downloadUrl: fields.downloadUrl }),
    },
    {
      sourceId: fields.sourceId,
      bodyId: fields.bodyId,
      listed: fields.listed,
      nowIso: new Date().toISOString(),
    },
  );
  return documentId(fields.url);
}

export async function setDocumentFields(bed: PreviewBed, docId: string, fields: Record<string, unknown>) {
  const names = Object.keys(fields);
  await bed.aws.clients.doc.send(
    new UpdateCommand({
      TableName: bed.aws.env.DOCUMENTS_TABLE,
      Key: { docId },
      UpdateExpression: `SET ${names.map((_, i) => `#k${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n, i) => [`#k${i}`, n])),
      ExpressionAttributeValues: Object.fromEntries(names.map((n, i) => [`:v${i}`, fields[n]])),
    }),
  );
}

/** OPT-2: the File object marked deleted in the mirror index (as the sync or `tombstone` leaves it). */
export async function tombstoneFile(bed: PreviewBed, sourceId: string, fileId: string) {
  await bed.aws.clients.doc.send(
    new PutCommand({
      TableName: bed.aws.env.STATE_TABLE,
      Item: {
        pk: indexPartition(sourceId, 'file'),
        sk: apiIdHash(fileId),
        sourceId,
        type: 'file',
        id: fileId,
        key: 'mirror/x',
        hash: 'x',
        deleted: true,
        fetchedAt: new Date().toISOString(),
      },
    }),
  );
}

/** ERR-6: the source's sync failed `failureStreak` runs in a row. */
export async function setFailureStreak(bed: PreviewBed, sourceId: string, failureStreak: number) {
  await patchSourceState({ doc: bed.aws.clients.doc, table: bed.aws.env.STATE_TABLE }, sourceId, {
    schedule: { schemaVersion: 1, quietStreak: 0, failureStreak, fullSyncInProgress: false, sessionDays: [] },
  });
}

/** One opening by `visitor`; `query` (without `?`) as a link carries it, e.g. OParl's `download=1`. */
export async function open(bed: PreviewBed, docId: string, visitor: string, query = '') {
  const res = await fetch(`${bed.url}/documents/${docId}${query === '' ? '' : `?${query}`}`, {
    headers: { 'x-test-visitor': visitor },
    redirect: 'manual',
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

export const fileRequests = (requests: { path: string }[]) =>
  requests.filter((r) => r.path.startsWith('/files/'));

/**
 * Follows the preview's redirect to a stored copy with a plain HTTP client, as a browser does: the
 * presigned URL must be served by the S3 peer itself (s3rver checks the signature and its expiry).
 */
export async function followStored(
  bed: PreviewBed,
  opened: { status: number; headers: Headers },
  headers: Record<string, string> = {},
) {
  const location = opened.headers.get('location');
  if (opened.status !== 302 || location === null)
    throw new Error(`expected a redirect, got ${opened.status}`);
  if (!location.startsWith(bed.aws.peers.s3Endpoint)) throw new Error(`not the S3 peer: ${location}`);
  const res = await fetch(location, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}

/** A stored copy as the document cache leaves it: the object under `files/` and the record `stored`. */
export async function storeCopy(
  bed: PreviewBed,
  sourceId: string,
  docId: string,
  bytes: Buffer,
  contentType: string,
): Promise<void> {
  const key = fileKey(sourceId, docId);
  await bed.aws.clients.s3.send(
    new PutObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: key, Body: bytes, ContentType: contentType }),
  );
  await setDocumentFields(bed, docId, { state: 'stored', storedKey: key, size: bytes.length });
}

/** A listed body's file as the sync records it, with a stored copy of `bytes` under its own Content-Type. */
export async function recordStoredFile(
  bed: PreviewBed,
  fields: { sourceId: string; bodyId: string; url: string },
  bytes: Buffer,
  contentType: string,
): Promise<string> {
  const docId = await recordFile(bed, { ...fields, listed: true });
  await storeCopy(bed, fields.sourceId, docId, bytes, contentType);
  return docId;
}

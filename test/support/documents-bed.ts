import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HeadObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { assemblePdf } from '../../demo/pdf';
import { parseEnv } from '../../shared/config/env';
import type { SourceItem } from '../../shared/config/source';
import {
  composeDocuments,
  type DocumentItem,
  type DocumentsDeps,
  type DocumentsRuntime,
  DocumentsStore,
} from '../../shared/documents';
import { bodyKeyOf } from '../../shared/documents/keys';
import type { BodyRecord } from '../../shared/engine';
import { bodySk, documentId, recordDocument, sourcePartition } from '../../shared/engine';
import type { FetchEvent } from '../../shared/fetch';
import { createTestResolver } from '../../shared/net';
import { createHostSlots, type HostLedger } from '../../shared/slots';
import { patchSourceState } from '../../shared/store/source-state';
import { putSourceItem } from '../../shared/store/sources';
import { type AwsTestbed, startAwsTestbed } from './aws';
import { InstantClock } from './fetch-kit';

/**
 * Test kit of the document functions: the local AWS peers, and one documents runtime whose host
 * slots, pacing sleeps and fetcher clock run on an instant clock (virtual time: the real pacing code,
 * no real waiting), with `*.test` resolving to loopback. Every pass gets `now` from that clock.
 */
export const T0 = Date.UTC(2026, 2, 2, 9, 0, 0); // Monday 2026-03-02 10:00 Berlin
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

export interface DocumentsBed {
  aws: AwsTestbed;
  clock: InstantClock;
  runtime: DocumentsRuntime;
  deps: DocumentsDeps;
  store: DocumentsStore;
  events: FetchEvent[];
  /** Fake-clock time of every request the fetcher made (RATE-6 spacing). */
  requestTimes: { host: string; method: string; url: string; atMs: number }[];
  now(): Date;
  close(): Promise<void>;
}

export async function startDocumentsBed(
  options: { startMs?: number; ledger?: HostLedger } = {},
): Promise<DocumentsBed> {
  const aws = await startAwsTestbed();
  const clock = new InstantClock(options.startMs ?? T0);
  const events: FetchEvent[] = [];
  const requestTimes: DocumentsBed['requestTimes'] = [];
  const env = parseEnv({ ...aws.peers.env, INGESTOR_ALLOW_LOOPBACK: 'true' });
  const runtime = await composeDocuments(env, {
    clients: aws.clients,
    resolver: createTestResolver(),
    slots: createHostSlots({ clock }),
    // Item 5 of issue 27: with a ledger the passes are admitted per host (else every host, as before).
    ...(options.ledger ? { ledger: options.ledger } : {}),
    clock,
    sleep: clock.sleep,
    onRequest: (event) => {
      events.push(event);
      if (event.kind === 'request') {
        requestTimes.push({ host: event.host, method: event.method, url: event.url, atMs: clock.now() });
      }
    },
  });
  return {
    aws,
    clock,
    runtime,
    deps: runtime.deps,
    store: new DocumentsStore(aws.clients.doc, aws.env.DOCUMENTS_TABLE),
    events,
    requestTimes,
    now: () => new Date(clock.now()),
    async close() {
      await runtime.close();
      await aws.stop();
    },
  };
}

export async function putSource(
  bed: DocumentsBed,
  item: Partial<SourceItem> & { sourceId: string; systemUrl: string },
): Promise<void> {
  await putSourceItem(bed.aws.clients.doc, bed.aws.env.SOURCES_TABLE, { active: true, ...item });
}

/** A body as the sync writes it (State `BODY#…`), listed or not (ONB-4). */
export async function putBody(
  bed: DocumentsBed,
  sourceId: string,
  body: { id: string; listed: boolean; slug?: string; deleted?: boolean },
): Promise<void> {
  const bodyKey = bodyKeyOf(body.id);
  const record: BodyRecord = {
    bodyKey,
    id: body.id,
    name: body.slug ?? 'Stadt',
    slug: body.slug ?? `stadt-${bodyKey.slice(0, 4)}`,
    listed: body.listed,
    lists: {},
    firstSeenAt: new Date(T0).toISOString(),
    lastSeenAt: new Date(T0).toISOString(),
    ...(body.deleted ? { deleted: true } : {}),
  };
  await bed.aws.clients.doc.send(
    new PutCommand({
      TableName: bed.aws.env.STATE_TABLE,
      Item: { pk: sourcePartition(sourceId), sk: bodySk(bodyKey), ...record },
    }),
  );
}

/** ERR-6: the source's sync failed `failureStreak` runs in a row. */
export async function setFailureStreak(bed: DocumentsBed, sourceId: string, failureStreak: number) {
  await patchSourceState({ doc: bed.aws.clients.doc, table: bed.aws.env.STATE_TABLE }, sourceId, {
    schedule: { schemaVersion: 1, quietStreak: 0, failureStreak, fullSyncInProgress: false, sessionDays: [] },
  });
}

/** Records a file the way the sync does (shared/oparl `recordDocument`): pending, due now, in `due`. */
export async function recordFile(
  bed: DocumentsBed,
  fields: {
    sourceId: string;
    bodyId: string;
    url: string;
    listed?: boolean;
    atMs?: number;
    fileId?: string;
    /** The File object's `modified`; recording again with another value is a change (DEL-1). */
    modified?: string;
  },
): Promise<string> {
  await recordDocument(
    bed.aws.clients,
    bed.aws.env.DOCUMENTS_TABLE,
    {
      id: fields.fileId ?? `${fields.url}#file`,
      type: 'https://schema.oparl.org/1.1/File',
      accessUrl: fields.url,
      ...(fields.modified === undefined ? {} : { modified: fields.modified }),
    },
    {
      sourceId: fields.sourceId,
      bodyId: fields.bodyId,
      listed: fields.listed ?? true,
      nowIso: new Date(fields.atMs ?? bed.clock.now()).toISOString(),
    },
  );
  return documentId(fields.url);
}

export async function getDoc(bed: DocumentsBed, docId: string): Promise<DocumentItem> {
  const item = await bed.store.get(docId);
  if (!item) throw new Error(`no document ${docId}`);
  return item;
}

export async function objectExists(bed: DocumentsBed, key: string): Promise<boolean> {
  try {
    await bed.aws.clients.s3.send(new HeadObjectCommand({ Bucket: bed.aws.env.BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

export async function keysUnder(bed: DocumentsBed, prefix: string): Promise<string[]> {
  const out = await bed.aws.clients.s3.send(
    new ListObjectsV2Command({ Bucket: bed.aws.env.BUCKET, Prefix: prefix }),
  );
  return (out.Contents ?? []).map((o) => o.Key ?? '');
}

/** Requests to file paths (robots.txt excluded), from a fake council's log. */
export function fileRequests(requests: { path: string; method: string }[], path?: string) {
  return requests.filter((r) => r.path.startsWith('/files/') && (path === undefined || r.path === path));
}

/**
 * A PDF without any text operators — what a scanner produces (an image, here a filled rectangle):
 * the "scanned" case of DOC-2.
 */
export function buildScannedPdf(): Buffer {
  const content = '0.5 g\n72 72 451 698 re\nf';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
  ];
  return assemblePdf(objects);
}

/** A loopback file server that makes big bodies on the fly (never 81 MB in memory) and serves fixtures. */
export interface FileServer {
  url(path: string): string;
  /** Bytes written per path before the client went away or the body ended. */
  sent: Map<string, number>;
  /** Requests per path (robots.txt included). */
  requests: Map<string, number>;
  close(): Promise<void>;
}

export async function startFileServer(
  fixtures: Record<string, { body: Buffer; type: string }>,
): Promise<FileServer> {
  const sent = new Map<string, number>();
  const requests = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    const fixture = fixtures[path];
    if (fixture) {
      res.writeHead(200, { 'content-type': fixture.type, 'content-length': String(fixture.body.length) });
      res.end(fixture.body);
      return;
    }
    const big = /^\/big-(chunked|declared)-(\d+)\.pdf$/.exec(path);
    if (!big) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
      return;
    }
    const total = Number(big[2]);
    res.writeHead(200, {
      'content-type': 'application/pdf',
      ...(big[1] === 'declared' ? { 'content-length': String(total) } : {}),
    });
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    chunk.write('%PDF-1.4\n');
    let written = 0;
    const pump = () => {
      while (written < total) {
        const piece = chunk.subarray(0, Math.min(chunk.length, total - written));
        written += piece.length;
        sent.set(path, written);
        if (!res.write(piece)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.on('close', () => res.removeAllListeners('drain'));
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path) => `http://files.test:${port}${path}`,
    sent,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UPLOAD_PART_BYTES } from '../../shared/documents/constants';
import { DocumentsStore } from '../../shared/documents/store';
import { fileKey } from '../../shared/mirror/keys';
import { tombstoneIds } from '../../shared/takedown';
import { type PreviewBed, putBody, putSource, recordFile, startPreviewBed } from '../support/preview-bed';
import { takedownDepsOf } from '../support/takedown';

/**
 * PRV-3 with DOC-5's write path: what the preview fetched reaches a document's live key only as a
 * complete file, promoted from its incoming key — and never once the document is taken down (OPT-5).
 * Real peers (dynalite, s3rver, redis-server behind the Upstash adapter); the council is a real HTTP
 * server on loopback that cuts or holds its answer mid-body. Every S3 write is recorded by a
 * middleware on the real S3 client, so "never written" is observed, not inferred from the end state.
 */

const SRC = 'cut';
const BODY = 'https://ris-cut.test/oparl/v1/bodies/1';
/** Larger than one upload part: a direct upload would already have sent parts to the live key. */
const FILE_BYTES = 2 * UPLOAD_PART_BYTES + 1024;

interface Council {
  server: Server;
  url: string;
  /** Held answers go on when this is called. */
  release(): void;
  /** Resolves once a held answer has sent its first half. */
  halfSent: Promise<void>;
}

/** `/files/cut.pdf`: half the declared bytes, then the socket is closed; `/files/held.pdf`: half, a pause, the rest. */
async function startCutCouncil(): Promise<Council> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let halfSent = () => {};
  const half = new Promise<void>((resolve) => {
    halfSent = resolve;
  });
  const bytes = Buffer.alloc(FILE_BYTES, 0x20);
  bytes.write('%PDF-1.4\n', 0);
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('User-agent: *\nAllow: /\n');
      return;
    }
    if (path !== '/files/cut.pdf' && path !== '/files/held.pdf') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(bytes.length) });
    const middle = Math.floor(bytes.length / 2);
    res.write(bytes.subarray(0, middle), () => {
      if (path === '/files/cut.pdf') {
        // The connection dies after half the declared length (a proxy or the server going away).
        res.socket?.destroy();
        return;
      }
      halfSent();
      void released.then(() => res.end(bytes.subarray(middle)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://ris-cut.test:${port}`, release, halfSent: half };
}

describe('PRV-3 / DOC-5 / OPT-5: the preview stores through the incoming key', () => {
  let bed: PreviewBed;
  let council: Council;
  /** Every S3 write of the test run: command and key. */
  const writes: { command: string; key: string }[] = [];

  beforeAll(async () => {
    bed = await startPreviewBed();
    council = await startCutCouncil();
    await putSource(bed, { sourceId: SRC, systemUrl: `${council.url}/oparl/v1/system` });
    await putBody(bed, SRC, { id: BODY, listed: true });
    bed.aws.clients.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const command = String(context.commandName);
        const key = (args.input as { Key?: string }).Key;
        if (key !== undefined && !/^(Get|Head|List)/.test(command)) writes.push({ command, key });
        return next(args);
      },
      { step: 'initialize', name: 'recordS3Writes' },
    );
  }, 60_000);
  afterAll(async () => {
    bed?.aws.clients.s3.middlewareStack.remove('recordS3Writes');
    council?.server.closeAllConnections();
    await new Promise<void>((resolve) => (council ? council.server.close(() => resolve()) : resolve()));
    await bed?.close();
  });

  async function keysUnder(prefix: string): Promise<string[]> {
    const out = await bed.aws.clients.s3.send(
      new ListObjectsV2Command({ Bucket: bed.aws.env.BUCKET, Prefix: prefix }),
    );
    return (out.Contents ?? []).map((o) => o.Key ?? '');
  }

  /** One opening through the handler, as the Lambda adapter runs it: body drained, then `after`. */
  async function openAndDrain(
    docId: string,
  ): Promise<{ status: number; bytes: number; bodyError?: unknown }> {
    const res = await bed.runtime.handler.handle({
      method: 'GET',
      path: `/documents/${docId}`,
      visitorAddress: '192.0.2.30',
    });
    let bytes = 0;
    let bodyError: unknown;
    try {
      for await (const chunk of res.body as Readable) bytes += (chunk as Buffer).length;
    } catch (error) {
      bodyError = error;
    }
    await res.after;
    return { status: res.status, bytes, ...(bodyError === undefined ? {} : { bodyError }) };
  }

  it('PRV-3 / DOC-5: an answer cut mid-body by the source never reaches the live key — no part, no object, no record', async () => {
    const docId = await recordFile(bed, {
      sourceId: SRC,
      bodyId: BODY,
      url: `${council.url}/files/cut.pdf`,
      listed: true,
    });
    const live = fileKey(SRC, docId);
    writes.length = 0;

    const opened = await openAndDrain(docId);

    // The visitor got the start of the file and then an error: the cut is seen, not hidden.
    expect(opened.status).toBe(200);
    expect(opened.bytes).toBeGreaterThan(UPLOAD_PART_BYTES);
    expect(opened.bytes).toBeLessThan(FILE_BYTES);
    expect(opened.bodyError).toBeDefined();
    expect(writes.filter((w) => w.key === live)).toEqual([]);
    expect(await keysUnder(live)).toEqual([]);
    // Nothing unfinished left behind either: the incoming upload was aborted.
    expect(await keysUnder(`files/_incoming/${SRC}/`)).toEqual([]);
    const item = await new DocumentsStore(bed.aws.clients.doc, bed.aws.env.DOCUMENTS_TABLE).get(docId);
    expect(item?.state).not.toBe('stored');
    expect(item?.storedKey).toBeUndefined();
  });

  it('OPT-5: a takedown landing while the preview fetch is in flight — the fetched copy is never written to the live key', async () => {
    const url = `${council.url}/files/held.pdf`;
    const fileId = `${url}#file`;
    const docId = await recordFile(bed, { sourceId: SRC, bodyId: BODY, url, listed: true, fileId });
    const live = fileKey(SRC, docId);
    writes.length = 0;

    const opening = openAndDrain(docId);
    await council.halfSent;
    // The takedown lands while half the file is still on its way (the operator's `tombstone --ids`).
    const takedown = await tombstoneIds(takedownDepsOf(bed.aws), [fileId], { by: 'test', sourceId: SRC });
    expect(takedown.registered.length + Object.keys(takedown.tombstoned).length).toBeGreaterThan(0);
    council.release();
    const opened = await opening;

    // The visitor who opened it before the takedown gets the whole file (as before).
    expect(opened).toEqual({ status: 200, bytes: FILE_BYTES });
    expect(writes.filter((w) => w.key === live)).toEqual([]);
    expect(await keysUnder(live)).toEqual([]);
    expect(await keysUnder(`files/_incoming/${SRC}/`)).toEqual([]);
    const item = await new DocumentsStore(bed.aws.clients.doc, bed.aws.env.DOCUMENTS_TABLE).get(docId);
    expect(item?.state).not.toBe('stored');
  });
});

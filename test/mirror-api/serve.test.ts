import { PutObjectCommand } from '@aws-sdk/client-s3';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serveCommand } from '../../cli/commands/serve';
import type { LocalRuntime } from '../../cli/local/runtime';
import { fileKey } from '../../shared/mirror/keys';
import { type AwsTestbed, startAwsTestbed } from '../support/aws';
import { getJson, type ServedMirror, seedServedMirror, walkList } from '../support/mirror-api';

let bed: AwsTestbed;
let m: ServedMirror;

beforeAll(async () => {
  bed = await startAwsTestbed();
  m = await seedServedMirror(bed, 'serve');
}, 120_000);

afterAll(async () => {
  await m?.close();
  await bed?.stop();
});

describe('ingestor serve: the API beside the preview on one port (issue 16)', () => {
  it('prints the System URL, serves /oparl/v1/system and hands /documents/… to the preview, query string included', async () => {
    const rt: LocalRuntime = { env: bed.env, clients: bed.clients, dataDir: '.', close: async () => {} };
    const stop = new AbortController();
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    let url = '';
    const listening = new Promise<void>((resolve) => {
      void serveCommand(rt, {
        allowLoopback: true,
        signal: stop.signal,
        onListening: (u) => {
          url = u;
          resolve();
        },
      }).then((r) => written.push(JSON.stringify(r.json)));
    });
    try {
      await listening;
      spy.mockRestore();
      expect(written.join('')).toContain(`OParl API over the mirror: ${url}/oparl/v1/system`);
      const system = await getJson(`${url}/oparl/v1/system`);
      expect(system.json.id).toBe(`${url}/oparl/v1/system`);
      const bodies = await getJson(system.json.body as string);
      expect((bodies.json.data as { name: string }[]).map((b) => b.name)).toEqual(['Stadt Köln']);
      // The preview answers its own route (an unknown document id): not the API's 404 text.
      const doc = await fetch(`${url}/documents/${'0'.repeat(64)}`);
      expect(doc.status).toBe(404);
      expect(await doc.text()).toContain('Dokument nicht gefunden');

      // A File's two links on this port, its document stored as the document cache stores it: the
      // preview sees `?download=1` (through the API's fallback) and signs an attachment, else inline.
      const { objects } = await walkList((bodies.json.data as { file: string }[])[0]?.file as string);
      const file = objects[0] as { accessUrl: string; downloadUrl: string };
      const docId = new URL(file.accessUrl).pathname.split('/').pop() as string;
      const key = fileKey(m.h.source.sourceId, docId);
      await bed.clients.s3.send(
        new PutObjectCommand({
          Bucket: bed.env.BUCKET,
          Key: key,
          Body: '%PDF-1.7\n',
          ContentType: 'application/pdf',
        }),
      );
      await bed.clients.doc.send(
        new UpdateCommand({
          TableName: bed.env.DOCUMENTS_TABLE,
          Key: { docId },
          UpdateExpression: 'SET #s = :s, storedKey = :k',
          ExpressionAttributeNames: { '#s': 'state' },
          ExpressionAttributeValues: { ':s': 'stored', ':k': key },
        }),
      );
      const signed = async (link: string) => {
        const res = await fetch(link, { redirect: 'manual' });
        expect(res.status, link).toBe(302);
        return new URL(res.headers.get('location') ?? '').searchParams.get('response-content-disposition');
      };
      expect(file.downloadUrl).toBe(`${file.accessUrl}?download=1`);
      expect(await signed(file.accessUrl)).toMatch(/^inline; filename="[^"]+\.pdf"$/);
      expect(await signed(file.downloadUrl)).toMatch(/^attachment; filename="[^"]+\.pdf"$/);
    } finally {
      spy.mockRestore();
      stop.abort();
    }
  });
});

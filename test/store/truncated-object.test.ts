import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEnv } from '../../shared/config/env';
import {
  type AwsClients,
  BucketObjects,
  createAwsClients,
  destroyAwsClients,
  MirrorRecords,
  StoredObjectUnreadableError,
} from '../../shared/store';

/**
 * A stored record whose body arrives cut short but self-consistent (Content-Length matching the part, as
 * s3rver answered a GET during a PUT of the key, or a hostile peer would): the reader refuses it with a
 * typed, retryable error naming the key — never a bare SyntaxError, never a part taken for the record.
 * The S3 peer is a real HTTP server on loopback that answers every GET with the first 1,168 bytes of a
 * record (the size of the chaos bench's "Unterminated string in JSON at position 1168").
 */

const RECORD = JSON.stringify({
  object: { id: 'https://council.test/oparl/v1/paper/1', type: 'https://schema.oparl.org/1.1/Paper' },
  meta: { fetchedAt: '2026-12-03T09:00:00.000Z', note: 'x'.repeat(3_000) },
});
const CUT = 1_168;

let server: ReturnType<typeof createServer>;
let clients: AwsClients;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    const part = Buffer.from(RECORD).subarray(0, CUT);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': part.length });
    res.end(part);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  clients = createAwsClients(
    parseEnv({ INGESTOR_S3_ENDPOINT: `http://127.0.0.1:${port}`, AWS_REGION: 'eu-central-1' }),
  );
});

afterAll(async () => {
  destroyAwsClients(clients);
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a stored JSON object cut short (OPT-2 records, the takedown reading what a sync writes)', () => {
  it('JSON.parse of the part fails as the chaos bench saw it (the fixture is the failure)', () => {
    expect(() => JSON.parse(RECORD.slice(0, CUT))).toThrow(/Unterminated string in JSON at position 1168/);
  });

  it('readJson answers STORE_OBJECT_UNREADABLE (retryable) with the key and the bytes received', async () => {
    const objects = new BucketObjects({ s3: clients.s3, bucket: 'mirror-bucket' });
    const error = await objects.readJson('mirror/src/paper/abc.json').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoredObjectUnreadableError);
    expect(error).toMatchObject({
      code: 'STORE_OBJECT_UNREADABLE',
      retryable: true,
      key: 'mirror/src/paper/abc.json',
      bytes: CUT,
    });
    expect(asked).toContain('GET /mirror-bucket/mirror/src/paper/abc.json?x-id=GetObject');
  });

  it('a mirror record read (what a takedown seals from) fails the same way, nothing taken from the part', async () => {
    const records = new MirrorRecords({ s3: clients.s3, bucket: 'mirror-bucket' });
    await expect(records.read('src', 'paper', 'https://council.test/oparl/v1/paper/1')).rejects.toMatchObject(
      {
        code: 'STORE_OBJECT_UNREADABLE',
      },
    );
  });
});

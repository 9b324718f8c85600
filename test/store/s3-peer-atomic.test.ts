import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BucketObjects } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * The local S3 peer keeps S3's promise that a GET answers a whole object — the one before a PUT until
 * the PUT is complete, then the new one — never a part. s3rver wrote in place: the chaos bench's
 * takedown-during-sync once read a record the sync was writing and aborted on a prefix of it
 * ("Unterminated string in JSON at position 1168"). The PUT here is held half-sent by its own body
 * request (no fault injection, no sleep): every GET meanwhile must answer the old object whole.
 */

const bed = useAwsTestbed();

describe('the local S3 peer: a GET during a PUT of the same key (OPT-2 records, DEL-* tombstones)', () => {
  it('answers the old object whole while the PUT is under way, and the new one once it is done', async () => {
    const objects = new BucketObjects({ s3: bed.clients.s3, bucket: bed.env.BUCKET });
    const key = 'mirror/atomic/paper/record.json';
    const before = JSON.stringify({ v: 'before', pad: 'a'.repeat(3_000) });
    const after = JSON.stringify({ v: 'after', pad: 'b'.repeat(400_000) });
    await objects.put(key, before);

    // A plain HTTP PUT (the peer takes unsigned requests): its body goes out when this test says so.
    const bytes = Buffer.from(after);
    const body = request(`${bed.env.INGESTOR_S3_ENDPOINT}/${bed.env.BUCKET}/${key}`, {
      method: 'PUT',
      headers: { 'content-length': bytes.length, 'content-type': 'application/json' },
    });
    const put = new Promise<number>((resolve, reject) => {
      body.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      body.on('error', reject);
    });
    // Half of the new object sent: the peer has begun its write (s3rver truncated the file here).
    body.write(bytes.subarray(0, bytes.length / 2));
    const during: string[] = [];
    for (let i = 0; i < 40; i += 1) {
      const text = (await objects.readText(key)) ?? '';
      during.push(text);
      if (text !== before) break;
    }
    body.end(bytes.subarray(bytes.length / 2));
    expect(await put).toBe(200);

    const partial = during.filter((t) => t !== before).map((t) => `${t.length} bytes: ${t.slice(0, 12)}…`);
    expect(partial).toEqual([]);
    expect(await objects.readText(key)).toBe(after);
  });
});

import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { storeVerifiedCopy } from '../../shared/documents';
import { UPLOAD_PART_BYTES } from '../../shared/documents/constants';
import { fileKey, INCOMING_PREFIX } from '../../shared/mirror';
import { BucketObjects } from '../../shared/store';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 28 / DOC-5: the write path of a fetched file against the real S3 peer (s3rver), every S3 call
 * seen by client middleware on the real client. A file within one upload part is one PutObject to its
 * key (the promotion's CopyObject of a PUT-class request saved); a larger one still goes through the
 * incoming key and its promotion. Either way only a complete, non-empty file ever reaches the key.
 */
describe('storeVerifiedCopy: one PutObject for a file within one part, the incoming key for a larger one', () => {
  const aws = useAwsTestbed();
  const access = () => ({ s3: aws.clients.s3, bucket: aws.env.BUCKET });
  let n = 0;

  function bytesOf(size: number, fill: number): Buffer {
    const b = Buffer.alloc(size, fill);
    b.write('%PDF-1.4\n');
    return b;
  }

  /** A body as the fetcher hands it: chunks of 64 KiB, optionally failing after `failAfter` bytes. */
  function bodyOf(bytes: Buffer, failAfter?: number): Readable {
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let at = 0; at < bytes.length; at += 64 * 1024) {
        if (failAfter !== undefined && at >= failAfter)
          throw Object.assign(new Error('body cut'), {
            code: 'BODY_INCOMPLETE',
            url: 'https://ris.test/f.pdf',
          });
        yield bytes.subarray(at, at + 64 * 1024);
      }
    }
    return Readable.from(chunks(), { objectMode: false });
  }

  /** Runs `work` with every S3 command it sends recorded (name and key); `crash` fails matching ones. */
  async function watched<T>(
    work: () => Promise<T>,
    crash?: (command: string, key: string | undefined) => boolean,
  ): Promise<{ calls: string[]; result: T | Error }> {
    const calls: string[] = [];
    const name = `watch-${++n}`;
    aws.clients.s3.middlewareStack.add(
      (next, context) => async (args) => {
        const key = (args.input as { Key?: string }).Key;
        const command = String(context.commandName).replace(/Command$/, '');
        calls.push(`${command} ${key?.startsWith(INCOMING_PREFIX) ? 'incoming' : key}`);
        if (crash?.(command, key)) throw new Error(`crash at ${command}`);
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      return { calls, result: await work().catch((e: Error) => e) };
    } finally {
      aws.clients.s3.middlewareStack.remove(name);
    }
  }

  async function live(key: string): Promise<Buffer | undefined> {
    try {
      const out = await aws.clients.s3.send(new GetObjectCommand({ Bucket: aws.env.BUCKET, Key: key }));
      return Buffer.from(await out.Body!.transformToByteArray());
    } catch {
      return undefined;
    }
  }

  async function incoming(): Promise<string[]> {
    const out = await aws.clients.s3.send(
      new ListObjectsV2Command({ Bucket: aws.env.BUCKET, Prefix: INCOMING_PREFIX }),
    );
    return (out.Contents ?? []).map((o) => o.Key ?? '');
  }

  const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

  it('a file within one part: one PutObject to its key, no incoming object, no CopyObject', async () => {
    const key = fileKey('stadt-one-put', 'doc-1');
    const bytes = bytesOf(400_000, 0x41);
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), { key, body: bodyOf(bytes), contentType: 'application/pdf' }),
    );
    expect(result).toEqual({ kind: 'stored', object: { size: bytes.length, sha256: sha(bytes) } });
    expect(calls).toEqual([`PutObject ${key}`]);
    expect((await live(key))?.equals(bytes)).toBe(true);
    expect((await new BucketObjects(access()).head(key))?.contentType).toBe('application/pdf');
    expect(await incoming()).toEqual([]);
  });

  it('a file of exactly one part is still one PutObject', async () => {
    const key = fileKey('stadt-one-put', 'doc-edge');
    const bytes = bytesOf(UPLOAD_PART_BYTES, 0x42);
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), { key, body: bodyOf(bytes), contentType: 'application/pdf' }),
    );
    expect(result).toMatchObject({ kind: 'stored', object: { size: UPLOAD_PART_BYTES, sha256: sha(bytes) } });
    expect(calls).toEqual([`PutObject ${key}`]);
  });

  it('DOC-5: a body cut within the first part writes nothing — the copy held stays, nothing waits', async () => {
    const key = fileKey('stadt-cut', 'doc-1');
    const old = bytesOf(200_000, 0x43);
    await storeVerifiedCopy(access(), { key, body: bodyOf(old), contentType: 'application/pdf' });
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), {
        key,
        body: bodyOf(bytesOf(300_000, 0x44), 128 * 1024),
        contentType: 'application/pdf',
      }),
    );
    // The body's own error, as the fetcher raised it (fetchFileToS3 maps it to an outcome).
    expect(result).toMatchObject({ code: 'BODY_INCOMPLETE' });
    expect(calls).toEqual([]);
    expect((await live(key))?.equals(old)).toBe(true);
  });

  it('DOC-5: an empty answer writes nothing and reports empty', async () => {
    const key = fileKey('stadt-empty', 'doc-1');
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), { key, body: bodyOf(Buffer.alloc(0)), contentType: 'application/pdf' }),
    );
    expect(result).toEqual({ kind: 'empty' });
    expect(calls).toEqual([]);
    expect(await live(key)).toBeUndefined();
  });

  it('OPT-5: refused before the write, nothing reaches the key; refused after it, the new copy is deleted', async () => {
    const key = fileKey('stadt-taken-down', 'doc-1');
    const bytes = bytesOf(100_000, 0x45);
    const before = await watched(() =>
      storeVerifiedCopy(access(), {
        key,
        body: bodyOf(bytes),
        contentType: 'application/pdf',
        mayKeep: async () => false,
      }),
    );
    expect(before.result).toEqual({ kind: 'not-kept' });
    expect(before.calls).toEqual([]);
    let looks = 0;
    const after = await watched(() =>
      storeVerifiedCopy(access(), {
        key,
        body: bodyOf(bytes),
        contentType: 'application/pdf',
        mayKeep: async () => ++looks === 1,
      }),
    );
    expect(after.result).toEqual({ kind: 'not-kept' });
    expect(after.calls).toEqual([`PutObject ${key}`, `DeleteObject ${key}`]);
    expect(await live(key)).toBeUndefined();
  });

  it('a file over one part: streamed to the incoming key, promoted by CopyObject; a crash there keeps the old copy', async () => {
    const key = fileKey('stadt-big', 'doc-1');
    const old = bytesOf(100_000, 0x46);
    await storeVerifiedCopy(access(), { key, body: bodyOf(old), contentType: 'application/pdf' });
    const bytes = bytesOf(UPLOAD_PART_BYTES + 300_000, 0x47);
    const crashed = await watched(
      () => storeVerifiedCopy(access(), { key, body: bodyOf(bytes), contentType: 'application/pdf' }),
      (command) => command === 'CopyObject',
    );
    expect(crashed.result).toBeInstanceOf(Error);
    expect((await live(key))?.equals(old)).toBe(true);
    expect(await incoming()).toHaveLength(1);
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), { key, body: bodyOf(bytes), contentType: 'application/pdf' }),
    );
    expect(result).toEqual({ kind: 'stored', object: { size: bytes.length, sha256: sha(bytes) } });
    expect(calls.filter((c) => !c.endsWith('incoming'))).toEqual([`CopyObject ${key}`]);
    expect(calls).toContain('CreateMultipartUpload incoming');
    expect((await live(key))?.equals(bytes)).toBe(true);
    expect(await incoming()).toEqual([]);
  });

  it('DOC-5: a body cut after the first part aborts the upload — the copy held stays, nothing waits', async () => {
    const key = fileKey('stadt-big-cut', 'doc-1');
    const old = bytesOf(100_000, 0x48);
    await storeVerifiedCopy(access(), { key, body: bodyOf(old), contentType: 'application/pdf' });
    const { calls, result } = await watched(() =>
      storeVerifiedCopy(access(), {
        key,
        body: bodyOf(bytesOf(2 * UPLOAD_PART_BYTES + 100_000, 0x49), UPLOAD_PART_BYTES + 256 * 1024),
        contentType: 'application/pdf',
      }),
    );
    expect(result).toMatchObject({ code: 'BODY_INCOMPLETE' });
    expect(calls.some((c) => c.endsWith(key))).toBe(false);
    expect((await live(key))?.equals(old)).toBe(true);
    expect(await incoming()).toEqual([]);
  });
});

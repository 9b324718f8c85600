import type { Readable } from 'node:stream';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { IngestorError } from '../errors';
import type { BucketContext } from './context';

/**
 * A stored JSON object whose body does not parse: cut short in transfer, or read while it was being
 * written by a store that is not atomic (s3rver before cli/local atomic-s3.ts). Retryable: the object
 * itself may be whole; the caller's run fails and repeats instead of treating a part as the record.
 */
export class StoredObjectUnreadableError extends IngestorError {
  constructor(
    readonly key: string,
    readonly bytes: number,
    cause: unknown,
  ) {
    super(
      'STORE_OBJECT_UNREADABLE',
      `s3://…/${key}: ${bytes} bytes that are not whole JSON (${String(cause)})`,
      {
        retryable: true,
        cause,
      },
    );
  }
}

/** What S3 answers for a key that holds nothing (the SDK's names differ by operation). */
export function isMissingObject(error: unknown): boolean {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    error instanceof NoSuchKey ||
    e.name === 'NoSuchKey' ||
    e.name === 'NotFound' ||
    e.$metadata?.httpStatusCode === 404
  );
}

export interface PutOptions {
  contentType?: string;
  metadata?: Record<string, string>;
  /** S3 tagging, URL-encoded (`mirror=tombstone`). */
  tagging?: string;
}

/**
 * S3's "no such object" in the strict sense: NoSuchKey from GET, NotFound (a bare 404) from HEAD — not
 * any 404: a missing bucket (NoSuchBucket) is a misconfiguration and stays an error.
 */
export function isMissingKey(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return error instanceof NoSuchKey || name === 'NoSuchKey' || name === 'NotFound';
}

/** How a stream of unknown length is uploaded: in parts of `partSize` bytes, `queueSize` at once. */
export interface UploadOptions {
  contentType?: string;
  partSize: number;
  queueSize: number;
}

/** The bucket's objects by key: the few operations every folder needs, absent keys as `undefined`. */
export class BucketObjects {
  constructor(private readonly ctx: BucketContext) {}

  /** The object's text (UTF-8); undefined when there is none. */
  async readText(key: string): Promise<string | undefined> {
    try {
      const out = await this.ctx.s3.send(new GetObjectCommand({ Bucket: this.ctx.bucket, Key: key }));
      return await out.Body?.transformToString('utf-8');
    } catch (error) {
      if (error instanceof NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  /** The object's JSON, parsed; undefined when there is none. */
  async readJson<T>(key: string): Promise<T | undefined> {
    const text = await this.readText(key);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new StoredObjectUnreadableError(key, Buffer.byteLength(text), error);
    }
  }

  async put(key: string, body: string | Uint8Array, options: PutOptions = {}): Promise<void> {
    await this.ctx.s3.send(
      new PutObjectCommand({
        Bucket: this.ctx.bucket,
        Key: key,
        Body: body,
        ...(options.contentType !== undefined ? { ContentType: options.contentType } : {}),
        ...(options.metadata !== undefined ? { Metadata: options.metadata } : {}),
        ...(options.tagging !== undefined ? { Tagging: options.tagging } : {}),
      }),
    );
  }

  async putJson(key: string, value: unknown, options: Omit<PutOptions, 'contentType'> = {}): Promise<void> {
    await this.put(key, JSON.stringify(value), {
      contentType: 'application/json; charset=utf-8',
      ...options,
    });
  }

  /** The object's stored Content-Type (a HEAD), or undefined when the key holds nothing. */
  async head(key: string): Promise<{ contentType: string | undefined } | undefined> {
    try {
      const out = await this.ctx.s3.send(new HeadObjectCommand({ Bucket: this.ctx.bucket, Key: key }));
      return { contentType: out.ContentType };
    } catch (error) {
      if (isMissingObject(error)) return undefined;
      throw error;
    }
  }

  /**
   * A presigned GET of the object whose response headers are fixed in the signature
   * (`response-content-*`): nobody can change them without breaking the URL.
   */
  presignGet(
    key: string,
    response: { contentType: string; contentDisposition: string },
    options: { expiresInS: number; signedAt?: Date },
  ): Promise<string> {
    return getSignedUrl(
      this.ctx.s3,
      new GetObjectCommand({
        Bucket: this.ctx.bucket,
        Key: key,
        ResponseContentType: response.contentType,
        ResponseContentDisposition: response.contentDisposition,
      }),
      {
        expiresIn: options.expiresInS,
        ...(options.signedAt === undefined ? {} : { signingDate: options.signedAt }),
      },
    );
  }

  /** Whether the key holds an object (a HEAD). */
  async exists(key: string): Promise<boolean> {
    try {
      await this.ctx.s3.send(new HeadObjectCommand({ Bucket: this.ctx.bucket, Key: key }));
      return true;
    } catch (error) {
      if (isMissingObject(error)) return false;
      throw error;
    }
  }

  /** Deletes the object; deleting an absent key succeeds (S3), so repeating is harmless. */
  async delete(key: string): Promise<void> {
    await this.ctx.s3.send(new DeleteObjectCommand({ Bucket: this.ctx.bucket, Key: key }));
  }

  /** Server-side copy within the bucket (metadata and tags go with it). */
  async copy(from: string, to: string): Promise<void> {
    await this.ctx.s3.send(
      new CopyObjectCommand({ Bucket: this.ctx.bucket, CopySource: `${this.ctx.bucket}/${from}`, Key: to }),
    );
  }

  /**
   * Streams `body` to `key` with a multipart upload (never the whole body in memory; a PutObject of a
   * stream of unknown length fails). A failed upload is aborted and its parts removed: nothing is left
   * under `key`. Rejects with the upload's error.
   */
  async upload(key: string, body: Readable, options: UploadOptions): Promise<void> {
    const upload = new Upload({
      client: this.ctx.s3,
      params: {
        Bucket: this.ctx.bucket,
        Key: key,
        Body: body,
        ...(options.contentType === undefined ? {} : { ContentType: options.contentType }),
      },
      partSize: options.partSize,
      queueSize: options.queueSize,
      // The default, said aloud: a failed multipart upload is aborted, its parts removed.
      leavePartsOnError: false,
    });
    await upload.done();
  }

  /**
   * The object's body as a stream and its stored length, or undefined when the key holds nothing
   * (strictly: `isMissingKey`). The caller reads or destroys the stream.
   */
  async openRead(key: string): Promise<{ body: Readable; contentLength: number | undefined } | undefined> {
    try {
      const out = await this.ctx.s3.send(new GetObjectCommand({ Bucket: this.ctx.bucket, Key: key }));
      return { body: out.Body as Readable, contentLength: out.ContentLength };
    } catch (error) {
      if (isMissingKey(error)) return undefined;
      throw error;
    }
  }

  /**
   * Copy, then delete: `to` changes in one step from its old object to `from`'s (metadata copied). A
   * crash after the copy leaves only `from` behind.
   */
  async move(from: string, to: string): Promise<void> {
    await this.ctx.s3.send(
      new CopyObjectCommand({
        Bucket: this.ctx.bucket,
        Key: to,
        CopySource: encodeURI(`${this.ctx.bucket}/${from}`),
        MetadataDirective: 'COPY',
      }),
    );
    await this.delete(from);
  }
}

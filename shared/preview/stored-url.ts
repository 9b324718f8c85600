import type { S3Client } from '@aws-sdk/client-s3';
import type { BucketAccess } from '../documents';
import { BucketObjects } from '../store';
import { PREVIEW_STORED_URL_TTL_S } from './constants';

/**
 * A short-lived presigned GET of a stored copy (PRV-3), with the response's Content-Type and
 * Content-Disposition fixed in the signature (`response-content-*`): S3 then answers with our safe
 * headers — never a source's HTML inline — and nobody can change them without breaking the URL.
 */
export interface StoredObjectHead {
  /** The Content-Type the copy was stored with (the source's, as fetched). */
  contentType: string | undefined;
}

/** The stored object's own headers, or undefined when S3 does not have it (the record is stale). */
export async function headStoredObject(
  s3: S3Client,
  bucket: string,
  key: string,
): Promise<StoredObjectHead | undefined> {
  return new BucketObjects({ s3, bucket }).head(key);
}

export async function presignStoredObject(
  { s3, bucket }: BucketAccess,
  key: string,
  response: { contentType: string; contentDisposition: string },
  options: { signedAt?: Date; expiresInS?: number } = {},
): Promise<string> {
  const expiresInS = options.expiresInS ?? PREVIEW_STORED_URL_TTL_S;
  if (!(expiresInS > 0 && expiresInS <= PREVIEW_STORED_URL_TTL_S)) {
    throw new RangeError(
      `a stored copy's URL lives at most ${PREVIEW_STORED_URL_TTL_S} s, got ${expiresInS}`,
    );
  }
  return new BucketObjects({ s3, bucket }).presignGet(key, response, {
    expiresInS,
    ...(options.signedAt === undefined ? {} : { signedAt: options.signedAt }),
  });
}

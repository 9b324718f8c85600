import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { type BucketAccess, isMissingObject } from '../documents';
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
  try {
    const out = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    return { contentType: out.ContentType };
  } catch (error) {
    if (isMissingObject(error)) return undefined;
    throw error;
  }
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
  return getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ResponseContentType: response.contentType,
      ResponseContentDisposition: response.contentDisposition,
    }),
    { expiresIn: expiresInS, ...(options.signedAt === undefined ? {} : { signingDate: options.signedAt }) },
  );
}

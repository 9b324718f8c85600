import type { S3Client } from '@aws-sdk/client-s3';
import type { BucketAccess, DocumentItem } from '../documents';
import { BucketObjects } from '../store';
import { PREVIEW_STORED_REDIRECT_MAX_AGE_S, PREVIEW_STORED_URL_TTL_S } from './constants';
import { documentFileName, fileHeaders, redirect } from './respond';
import type { Delivery, PreviewResponse } from './types';

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

/** The stored copy a visitor asked for, and how (a view or a download). */
export interface StoredCopyAsked {
  item: DocumentItem;
  key: string;
  delivery: Delivery;
  signedAt: Date;
}

/**
 * A stored copy (PRV-3) is not streamed through the function: the visitor is redirected to a
 * short-lived presigned S3 URL carrying our safe Content-Type and Content-Disposition (from the
 * object's stored headers and what the visitor asked for). S3 serves the bytes, Range requests
 * included. The disposition is inside the signature, so a view and a download are two URLs.
 * Undefined when S3 does not have the copy the record names.
 */
export async function redirectToStored(
  access: BucketAccess,
  { item, key, delivery, signedAt }: StoredCopyAsked,
): Promise<PreviewResponse | undefined> {
  const head = await headStoredObject(access.s3, access.bucket, key);
  if (head === undefined) return undefined;
  const contentType = head.contentType ?? item.contentType;
  const safe = fileHeaders(
    contentType,
    documentFileName(item.docId, item.fetchedUrl ?? item.url, contentType),
    {
      delivery,
    },
  );
  const location = await presignStoredObject(
    access,
    key,
    {
      contentType: safe['content-type'] as string,
      contentDisposition: safe['content-disposition'] as string,
    },
    { signedAt },
  );
  return redirect(location, {
    'x-preview-source': 'stored',
    // Shared caches (CloudFront) may answer the same redirect for a minute: the URL outlives it. Its
    // cache key holds `download`, so a view's redirect is never answered to a download or back.
    'cache-control': `public, max-age=${PREVIEW_STORED_REDIRECT_MAX_AGE_S}`,
  });
}

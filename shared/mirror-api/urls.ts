import { LIST_CATALOGUE, type ListName } from '../engine';
import { apiIdHash } from '../mirror';
import { PREVIEW_DOWNLOAD_PARAM, PREVIEW_DOWNLOAD_VALUE } from '../preview';
import { API_PREFIX, OPARL_VERSION_URL } from './constants';

/**
 * The API's URL scheme (pure). Every id is derived from the origin id alone — the first 40 hex of its
 * SHA-256, the same hash the mirror keys its records by — so an object keeps its URL for ever, whatever
 * the origin's host or our deployment do, and a URL leads to the record without any lookup table.
 *
 *   {base}/oparl/v1/system                               the System
 *   {base}/oparl/v1/body                                 every listed body of every source
 *   {base}/oparl/v1/{source}/{type}/{hash}               one object (type = lower-case OParl type)
 *   {base}/oparl/v1/{source}/body/{hash}/{list}          a body's list (organization, paper, …)
 */
export const PASCAL_TYPES: Record<string, string> = {
  system: 'System',
  body: 'Body',
  organization: 'Organization',
  person: 'Person',
  meeting: 'Meeting',
  paper: 'Paper',
  legislativeterm: 'LegislativeTerm',
  membership: 'Membership',
  agendaitem: 'AgendaItem',
  consultation: 'Consultation',
  file: 'File',
  location: 'Location',
};

/** `https://schema.oparl.org/1.1/Paper` for `paper`. */
export function typeUrl(type: string): string {
  return `${OPARL_VERSION_URL}${PASCAL_TYPES[type] ?? type}`;
}

/** `paper` for `https://schema.oparl.org/1.0/Paper` (any version), undefined for other values. */
export function typeOfUrl(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^https:\/\/schema\.oparl\.org\/1\.[01]\/([A-Za-z]+)$/.exec(value);
  const name = m?.[1]?.toLowerCase();
  return name !== undefined && name in PASCAL_TYPES ? name : undefined;
}

export interface ApiUrls {
  base: string;
  system(): string;
  bodies(): string;
  object(sourceId: string, type: string, originId: string): string;
  /** The same URL from the id hash (an index row's sort key). */
  objectOfHash(sourceId: string, type: string, hash: string): string;
  list(sourceId: string, bodyOriginId: string, list: ListName): string;
  /** `File.accessUrl`: the document endpoint, a PDF shown inline. */
  document(docId: string): string;
  /** `File.downloadUrl`: the same document as a download, whatever its type (`?download=1`). */
  download(docId: string): string;
  /** Whether `/documents/…` is served beside the API (the preview); else File links stay the origin's. */
  servesDocuments: boolean;
}

export function apiUrls(base: string, opts: { documents?: boolean } = {}): ApiUrls {
  const root = `${base.replace(/\/+$/, '')}${API_PREFIX}`;
  // The preview's route (shared/preview): the stored copy, or its polite on-demand fetch.
  const document = (docId: string) => `${base.replace(/\/+$/, '')}/documents/${docId}`;
  return {
    base,
    system: () => `${root}/system`,
    bodies: () => `${root}/body`,
    object: (sourceId, type, originId) => `${root}/${sourceId}/${type}/${apiIdHash(originId)}`,
    objectOfHash: (sourceId, type, hash) => `${root}/${sourceId}/${type}/${hash}`,
    list: (sourceId, bodyOriginId, list) => `${root}/${sourceId}/body/${apiIdHash(bodyOriginId)}/${list}`,
    document,
    // The one query the preview reads; CloudFront keys its cache by it (infra/stack.ts).
    download: (docId) => `${document(docId)}?${PREVIEW_DOWNLOAD_PARAM}=${PREVIEW_DOWNLOAD_VALUE}`,
    servesDocuments: opts.documents ?? true,
  };
}

/** What an API path asks for (the path without query string). */
export type ApiRoute =
  | { kind: 'system' }
  | { kind: 'bodies' }
  | { kind: 'object'; sourceId: string; type: string; hash: string }
  | { kind: 'list'; sourceId: string; bodyHash: string; list: ListName }
  | { kind: 'not-found' };

const HASH = /^[0-9a-f]{40}$/;
const SOURCE_ID = /^[a-z0-9][a-z0-9-]*$/;

export function parseApiPath(path: string): ApiRoute {
  if (!path.startsWith(`${API_PREFIX}/`)) return { kind: 'not-found' };
  const parts = path.slice(API_PREFIX.length + 1).split('/');
  if (parts.length === 1 && parts[0] === 'system') return { kind: 'system' };
  if (parts.length === 1 && parts[0] === 'body') return { kind: 'bodies' };
  const [sourceId, type, hash, list] = parts;
  if (sourceId === undefined || !SOURCE_ID.test(sourceId) || type === undefined || !(type in PASCAL_TYPES))
    return { kind: 'not-found' };
  if (hash === undefined || !HASH.test(hash) || type === 'system') return { kind: 'not-found' };
  if (parts.length === 3) return { kind: 'object', sourceId, type, hash };
  const entry = LIST_CATALOGUE.find((l) => l.list === list);
  if (parts.length === 4 && type === 'body' && entry)
    return { kind: 'list', sourceId, bodyHash: hash, list: entry.list };
  return { kind: 'not-found' };
}

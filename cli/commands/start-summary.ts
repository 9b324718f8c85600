import { join } from 'node:path';
import { DocumentsStore } from '../../shared/documents';
import { MIRROR_TYPES, MirrorStore } from '../../shared/mirror';
import { listBodies, setBodyListed } from '../../shared/onboarding';
import { mirrorTablePlacement } from '../../shared/store';
import type { LocalRuntime } from '../local/runtime';
import { statusCommand } from './status';

/**
 * `npm start`'s first cycle on a fresh data folder does what an operator does after adding a system —
 * a manual full sync (FULL-8), the bodies listed (ONB-4), a files pass — and ends with where things
 * are: objects per type, files stored and with text, one document's preview link, and the status.
 */
export interface FirstStartSummary {
  objectsByType: Record<string, number>;
  documents: { total: number; stored: number; withText: number };
  /** One stored document with text: its id and preview path (`/documents/{docId}`, PRV-1). */
  preview: { docId: string; path: string; url?: string } | null;
}

/** ONB-4: the demo's bodies are listed, so that their files are fetched (DOC-7). */
export async function listAllBodies(rt: LocalRuntime, sourceId: string, by: string): Promise<string[]> {
  const tables = {
    sources: rt.env.SOURCES_TABLE,
    state: rt.env.STATE_TABLE,
    documents: rt.env.DOCUMENTS_TABLE,
    mirror: mirrorTablePlacement(rt.env),
  };
  const listed: string[] = [];
  for (const body of await listBodies(rt.clients.doc, tables, sourceId)) {
    if (body.listed || body.takedown) continue;
    await setBodyListed(rt.clients.doc, tables, body.slug, { listed: true, sourceId, by });
    listed.push(body.slug);
  }
  return listed;
}

export async function firstStartSummary(
  rt: LocalRuntime,
  sourceId: string,
  previewUrl: string | undefined,
): Promise<FirstStartSummary> {
  const mirror = new MirrorStore(
    { doc: rt.clients.doc, s3: rt.clients.s3 },
    { bucket: rt.env.BUCKET, stateTable: rt.env.STATE_TABLE, mirrorTable: mirrorTablePlacement(rt.env) },
  );
  const objectsByType: Record<string, number> = {};
  for (const type of MIRROR_TYPES) {
    let n = 0;
    for await (const _ of mirror.listLive(sourceId, type)) n += 1;
    if (n > 0) objectsByType[type] = n;
  }
  const documents = { total: 0, stored: 0, withText: 0 };
  let shown: string | undefined;
  for await (const item of new DocumentsStore(rt.clients.doc, rt.env.DOCUMENTS_TABLE).listBySource(
    sourceId,
  )) {
    documents.total += 1;
    if (item.storedKey !== undefined) documents.stored += 1;
    if (item.hasText === true) {
      documents.withText += 1;
      shown ??= item.docId;
    }
  }
  const path = shown === undefined ? undefined : `/documents/${shown}`;
  return {
    objectsByType,
    documents,
    preview:
      shown === undefined || path === undefined
        ? null
        : { docId: shown, path, ...(previewUrl === undefined ? {} : { url: `${previewUrl}${path}` }) },
  };
}

/** The summary for people: what is where, and how to look at it. */
export async function firstStartLines(
  rt: LocalRuntime,
  sourceId: string,
  summary: FirstStartSummary,
  now: Date,
): Promise<string[]> {
  const types = Object.entries(summary.objectsByType)
    .map(([type, n]) => `${type} ${n}`)
    .join(', ');
  const { documents, preview } = summary;
  const status = await statusCommand(rt, sourceId, now);
  return [
    `first start — what is where (data folder ${rt.dataDir}):`,
    `  objects: ${types || 'none'}`,
    `    JSON in S3 ${join(rt.dataDir, 's3', rt.env.BUCKET, 'mirror', sourceId)}/<type>/…, index in DynamoDB ${rt.env.STATE_TABLE}`,
    `  files: ${documents.total} documents, ${documents.stored} stored (S3 files/…), ${documents.withText} with text (S3 text/…)`,
    preview === null
      ? '  preview: no document with text yet (next files pass)'
      : preview.url !== undefined
        ? `  preview of one document: ${preview.url}`
        : `  preview of one document: npx ingestor serve --data ${rt.dataDir} --allow-loopback, then ${preview.path}`,
    '  status (npx ingestor status, when npm start is not running):',
    ...status.text.map((line) => `    ${line}`),
  ];
}

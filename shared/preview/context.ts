import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import type { DocumentItem } from '../documents';
import { bodyKeyOf } from '../documents';
import { SyncStateStore } from '../engine';
import type { SourceScheduleState } from '../schedule';
import { documentsRest, isSpared } from '../schedule';
import { getSourceState, loadSource, MirrorIndex, type MirrorTablePlacement } from '../store';
import { TakedownRegistry } from '../takedown';
import { PREVIEW_CONTEXT_TTL_MS } from './constants';

/** What the preview's decision needs besides the document item (PRV-4, ERR-6, DOC-7). */
export interface DocumentContext {
  source: SourceConfig | undefined;
  spared: boolean;
  listed: boolean;
}

export interface DocumentContextDeps {
  doc: DynamoDBDocumentClient;
  tables: { sources: string; state: string; mirror?: MirrorTablePlacement };
  now: () => Date;
}

/**
 * Reads a document's context — its source, the source's schedule state, its body's flag — and whether
 * it is taken down. Source config, sync state and body flags change rarely: reused for 30 s per process.
 */
export class DocumentContextReader {
  private readonly cache = new Map<string, { at: number; value: Promise<unknown> }>();
  private readonly registry: TakedownRegistry;
  private readonly mirrorIndex: MirrorIndex;

  constructor(private readonly deps: DocumentContextDeps) {
    this.registry = new TakedownRegistry(deps.doc, deps.tables.state);
    this.mirrorIndex = new MirrorIndex({ doc: deps.doc, table: deps.tables.state }, deps.tables.mirror);
  }

  async contextOf(item: DocumentItem): Promise<DocumentContext> {
    const { doc, tables } = this.deps;
    const [parsed, state, body] = await Promise.all([
      this.cached(`source|${item.sourceId}`, () => loadSource(doc, tables.sources, item.sourceId)),
      this.cached(`state|${item.sourceId}`, () =>
        getSourceState<SourceScheduleState>(doc, tables.state, item.sourceId),
      ),
      this.cached(`body|${item.sourceId}|${item.bodyId}`, () =>
        new SyncStateStore({ doc }, tables.state, item.sourceId).getBody(bodyKeyOf(item.bodyId)),
      ),
    ]);
    const source = parsed?.ok ? parsed.source : undefined;
    const schedule = state?.schedule;
    // ERR-6 / PRV-4: spared (paused) or resting after the 3rd failed sync run in a row.
    const spared =
      (schedule?.pause !== undefined && isSpared({ pause: schedule.pause }, this.deps.now().toISOString())) ||
      documentsRest({ failureStreak: schedule?.failureStreak ?? 0 }).rest;
    // DOC-7 / ONB-4: the body's current flag; the sync's copy on the item as fallback.
    const listed =
      item.takedownAt === undefined &&
      (body === undefined ? item.listed === true : body.listed === true && body.deleted !== true);
    return { source, spared, listed };
  }

  /**
   * OPT-2: the File object is tombstoned in the mirror index (by the source or an operator); OPT-5: or
   * it, or its body, is in the takedown registry — which outlives a purge of the index entry and a
   * `tombstone` killed before it flagged the item. Both reads run side by side.
   */
  async tombstoned(item: DocumentItem): Promise<boolean> {
    const [index, takedowns] = await Promise.all([
      item.fileId === undefined
        ? undefined
        : this.mirrorIndex.get(item.sourceId, 'file', item.fileId, { consistent: false }),
      this.registry.find(item.sourceId, [
        { scope: 'object', id: item.fileId ?? item.docId },
        { scope: 'body', id: item.bodyId },
      ]),
    ]);
    return index?.deleted === true || takedowns.length > 0;
  }

  private cached<T>(key: string, load: () => Promise<T>): Promise<T> {
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < PREVIEW_CONTEXT_TTL_MS) return hit.value as Promise<T>;
    const value = load();
    this.cache.set(key, { at: Date.now(), value });
    value.catch(() => this.cache.delete(key));
    return value;
  }
}

import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SourceConfig } from '../config';
import type { BodyRecord } from '../engine';
import { SyncStateStore } from '../engine';
import type { PoliteFetcher, RunContext } from '../fetch';
import { type HostStateView, hostStateView } from '../hosts';
import { loadHostIntervals } from '../pace';
import type { SourceScheduleState } from '../schedule';
import { BodyRecords, getSourceStates, loadAllSources, type StoreTables } from '../store';
import { TakedownRegistry, type TakedownSet } from '../takedown';
import type { HostBudget } from './admission';
import { sourceGate } from './decide';
import { bodyKeyOf } from './keys';
import { DocumentsStore } from './store';
import type { TextBounds } from './text-extractor';
import type { DocumentChange, DocumentItem, OutcomeCounts, SourceGate } from './types';

/** What every document function needs: clients, tables, the one polite fetcher, a clock for pacing. */
export interface DocumentsDeps {
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  tables: StoreTables;
  bucket: string;
  fetcher: PoliteFetcher;
  /** Pacing clock (RATE-6 spacing, PHO-1 pause), epoch ms. Decisions take the pass's `now` instead. */
  clock: { now(): number };
  sleep(ms: number): Promise<void>;
  log?: (event: string, fields: Record<string, unknown>) => void;
  /**
   * Item 5 of issue 27: the host budget the passes are admitted against (and their requests recorded
   * in). Absent — a test on its own slots — every host is admitted, as before.
   */
  hostBudget?: HostBudget;
}

export interface PassOptions {
  /** The run's time for every decision (fake clock in tests). */
  now: Date;
  /** Wall-clock epoch ms after which no new work is started (Lambda budget). */
  deadlineMs?: number;
  /** DOC-2: the text worker's bounds; only tests make them smaller (the defaults are the constants). */
  textBounds?: Partial<TextBounds>;
  /** After each document or photo: how far the stage is (the CLI's progress line on a terminal). */
  onProgress?: (progress: PassProgress) => void;
}

export interface PassProgress {
  stage: 'files' | 'text' | 'deletion check' | 'photos';
  done: number;
  total: number;
  host?: string;
}

/** One source as a run sees it: config, what it may do (gate), bodies with their listed flag, host pace. */
export interface SourceContext {
  source: SourceConfig;
  gate: SourceGate;
  /** Bodies by OParl id (State table `BODY#…`, written by the sync). */
  bodies: Map<string, BodyRecord>;
  /** RATE-2: the largest interval configured for any source on this source's host, ms. */
  hostIntervalMs: number;
  /** OPT-5: the source's takedown registry, read once per run (it outlives a purge and a lost flag). */
  takedowns: TakedownSet;
  /** RATE-9: what the host model reads of the source's schedule state (its syncs' demand). */
  hostState?: HostStateView;
}

export interface LoadedContexts {
  contexts: SourceContext[];
  /** Sources whose config is invalid: skipped (their status says why). */
  invalid: string[];
  /** Sources in the table, those left out by `include` too (issue 28: the shards the fleet needs). */
  fleetSources: number;
}

/** Sources, their sync state (ERR-6) and bodies (ONB-4 / DOC-7), read once per run. */
export async function loadSourceContexts(
  deps: DocumentsDeps,
  now: Date,
  /** Issue 28: only these sources' contexts (a deletion-check shard); their per-source reads only. */
  include: (source: SourceConfig) => boolean = () => true,
): Promise<LoadedContexts> {
  const load = await loadAllSources(deps.doc, deps.tables.sources);
  const { parsed } = load;
  const sources: SourceConfig[] = [];
  const invalid: string[] = [];
  for (const p of parsed) {
    if (p.ok && !include(p.source)) continue;
    if (p.ok) sources.push(p.source);
    else invalid.push(p.sourceId);
  }
  // RATE-2: broken items keep counting for their host with their last valid pace (issue 13).
  const { byHostMs: hostIntervals } = await loadHostIntervals(deps.doc, deps.tables.state, load);
  const contexts: SourceContext[] = [];
  const registry = new TakedownRegistry(deps.doc, deps.tables.state);
  // Issue 28: every source's state in one read (50 a BatchGet), not one round trip a source.
  const states = await getSourceStates<SourceScheduleState>(
    deps.doc,
    deps.tables.state,
    sources.map((s) => s.sourceId),
  );
  for (const source of sources) {
    const state = states.get(source.sourceId);
    const bodies = await new SyncStateStore(
      { doc: deps.doc },
      deps.tables.state,
      source.sourceId,
    ).getBodies();
    contexts.push({
      source,
      gate: sourceGate(source, state?.schedule, now),
      bodies: new Map(bodies.map((b) => [b.id, b])),
      hostIntervalMs: hostIntervals.get(source.host) ?? source.requestIntervalSeconds * 1000,
      takedowns: await registry.load(source.sourceId),
      ...(state?.schedule === undefined ? {} : { hostState: hostStateView(state.schedule) }),
    });
  }
  return { contexts, invalid, fleetSources: parsed.length };
}

/**
 * ONB-4 / DOC-7: whether the document's body is listed now (the body's flag; the sync's copy as
 * fallback). A document taken down (OPT-2) counts as unlisted whatever its body.
 */
export function isListed(
  ctx: SourceContext,
  item: Pick<DocumentItem, 'bodyId' | 'listed' | 'takedownAt' | 'fileId' | 'docId'>,
): boolean {
  if (isTakenDown(ctx, item)) return false;
  const body = ctx.bodies.get(item.bodyId);
  return body === undefined ? item.listed === true : body.listed === true && body.deleted !== true;
}

/**
 * OPT-2 / OPT-5: the document is taken down — flagged on its item, or its File object or body is in
 * the source's takedown registry (the flag may be missing after a `tombstone` killed between its steps).
 */
export function isTakenDown(
  ctx: Pick<SourceContext, 'takedowns'>,
  item: Pick<DocumentItem, 'bodyId' | 'takedownAt' | 'fileId' | 'docId'>,
): boolean {
  if (item.takedownAt !== undefined) return true;
  return ctx.takedowns.covers({ id: item.fileId ?? item.docId, bodyId: item.bodyId }) !== undefined;
}

/**
 * OPT-5 at the commit point of a copy: a fresh, strongly consistent look at the registry and at the
 * item's flag — a takedown issued while the file was being fetched wins over storing it.
 */
export async function takenDownNow(deps: DocumentsDeps, item: DocumentItem): Promise<boolean> {
  const [found, current] = await Promise.all([
    new TakedownRegistry(deps.doc, deps.tables.state).find(item.sourceId, [
      { scope: 'object', id: item.fileId ?? item.docId },
      { scope: 'body', id: item.bodyId },
    ]),
    documentsStoreOf(deps).get(item.docId),
  ]);
  return found.length > 0 || current?.takedownAt !== undefined;
}

/**
 * DOC-7 / ONB-4 at the commit point of a copy: a fresh, strongly consistent look at the body's listing —
 * an operator's `bodies unlist` issued while the file was being fetched wins over storing it (the pass
 * read the bodies once, at its start). A body record gone meanwhile leaves the pass's decision.
 */
export async function unlistedNow(deps: DocumentsDeps, item: DocumentItem): Promise<boolean> {
  const listed = await new BodyRecords({ doc: deps.doc, table: deps.tables.state }).listedNow(
    item.sourceId,
    bodyKeyOf(item.bodyId),
  );
  return listed === false;
}

/** Bodies an operator listed (and the source did not delete), with their index key. */
export function listedBodies(ctx: SourceContext): { body: BodyRecord; bodyKey: string }[] {
  return [...ctx.bodies.values()]
    .filter((b) => b.listed === true && b.deleted !== true)
    .map((body) => ({ body, bodyKey: bodyKeyOf(body.id) }));
}

export function documentsStoreOf(deps: DocumentsDeps): DocumentsStore {
  return new DocumentsStore(deps.doc, deps.tables.documents);
}

/** The host key of a URL (shared/util `hostKey`, one spelling per host), '' if none. */
export { hostKeyOrEmpty as hostOf } from '../util';

/** Runs `work` for each group, at most `parallel` groups at a time, each group's items in order. */
export async function forEachGroup<T>(
  groups: Map<string, T[]>,
  parallel: number,
  work: (key: string, item: T) => Promise<void>,
): Promise<void> {
  const queue = [...groups.entries()];
  const workers = Array.from({ length: Math.max(1, Math.min(parallel, queue.length)) }, async () => {
    for (;;) {
      const next = queue.shift();
      if (!next) return;
      const [key, items] = next;
      for (const item of items) await work(key, item);
    }
  });
  await Promise.all(workers);
}

export function countOutcome(counts: Record<string, number>, outcome: string): void {
  counts[outcome] = (counts[outcome] ?? 0) + 1;
}

/** One pass's working set: its peers, the Documents store, the pass's `now` and the tally it fills. */
export interface PassRun {
  deps: DocumentsDeps;
  store: DocumentsStore;
  now: Date;
  counts: OutcomeCounts;
}

/** A pass's work on the items of one source: the source's context and its run (ERR-2/3 per source). */
export interface SourceRun extends PassRun {
  ctx: SourceContext;
  runContext: RunContext;
}

/**
 * Writes `change` if the item still waits where it was read, and counts its outcome (`moved-meanwhile`
 * when another run was first). `prefix` tells text downloads (`download-…`) from other outcomes.
 */
export async function applyCounted(
  pass: PassRun,
  item: DocumentItem,
  change: DocumentChange,
  prefix = '',
): Promise<boolean> {
  const applied = await pass.store.apply(item, change);
  countOutcome(pass.counts, applied ? `${prefix}${change.outcome}` : 'moved-meanwhile');
  return applied;
}

export function pastDeadline(options: PassOptions): boolean {
  return options.deadlineMs !== undefined && Date.now() >= options.deadlineMs;
}

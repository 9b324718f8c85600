import type { FeedClients } from '../changes';
import { type FieldProblem, type SourceConfig, salvageSourceOwner } from '../config';
import { embeddedObjects, fileUrl, isRecord } from '../engine';
import { MIRROR_TYPES, type MirrorIndexEntry, MirrorStore } from '../mirror';
import { resolveBody } from '../onboarding';
import { BodyRecords, DocumentItems, loadAllSources, type StoreTables } from '../store';
import { hostKeyOrUndefined } from '../util';
import { RECORD_AGAIN_ROUNDS } from './constants';
import { commitEmbeddersWithout, type TakenDownObject } from './embedders';
import { TakedownError } from './errors';
import { bodyListsOf, type TakedownChange, type TakedownTarget } from './invalidation';
import { type TakedownItem, TakedownRegistry } from './registry';
import { type SealDeps, sealTakenDown } from './seal';
import type { TakedownMark } from './types';

/**
 * OPT-2 tombstone on an operator's decision, permanent until lifted (OPT-5). Steps, in this order:
 * 1. the takedown registry item (shared/takedown/registry.ts) — from here on no sync, document
 *    function or preview writes, fetches or serves the object again, whatever happens to the mirror
 *    (a purge deletes the index entry, never this item);
 * 2. the mirror: index entry marked (every listing skips it, every sync commit of it fails), then the
 *    S3 record turned into a tombstone (see `sealTakenDown`);
 * 3. a body taken down is unlisted (before step 2), the Documents items are flagged (`takedownAt`),
 *    and then — last, as the sign that all is done — its record gets the mark (`takedown`);
 * 4. (`--ids`) the stored objects embedding a taken-down one are committed again without it
 *    (shared/takedown/embedders.ts).
 * Nothing is removed: the last live copy stays in `meta.lastGood` for audit, with who, when and why in
 * `meta.takedown`. A run killed after step 1 leaves the takedown in force; repeating the command,
 * `ingestor backfill-index` (`completeTakedowns`, complete.ts, with the original mark) or the next sync
 * meeting the object completes steps 2–4. Repeating is harmless (idempotent).
 *
 * OPT-5, a lift in between: a `takedown lift` that reads the registry item after step 1 but before the
 * marks of step 2 land removes the item (it reads a takedown, at its revision) and marks not written
 * yet — the marks would then land with no item, down with nothing to say why. So at its end a takedown
 * reads its items again and, where one is gone, records it again and repeats steps 2–4 (`liftedMeanwhile`):
 * it ends down *with* its item — a takedown still running is never lost to a lift (the lift's operator
 * is told by the log, and a lift after the command returns lifts it whole). Completing a recorded
 * takedown (`options.mark`) records nothing anew and so checks nothing: a lift meanwhile stays lifted.
 */

/** Test seam: called once the registry items are written, before the mirror is touched. */
export type AfterRecorded = () => Promise<void> | void;

/** What `tombstoneBody` and `tombstoneIds` take besides their target. */
export interface TombstoneOptions {
  sourceId?: string;
  by: string;
  note?: string;
  afterRecorded?: AfterRecorded;
  /**
   * The mark of a takedown recorded earlier, whose command this run completes (`completeTakedowns`):
   * used instead of `by`/`note` and now, so the API's deletion time and the audit stay the takedown's.
   */
  mark?: TakedownMark;
}

export interface TakedownDeps {
  /** `changes`: the mirror's change feed, flushed before a command returns (issue 16). */
  clients: Pick<FeedClients, 'doc' | 's3' | 'changes'>;
  tables: StoreTables;
  bucket: string;
  now?: () => Date;
}

export interface TombstoneResult {
  sourceIds: string[];
  body: string | null;
  /** Objects newly tombstoned, by type. */
  tombstoned: Record<string, number>;
  /** Objects that were tombstoned already (by the source or an earlier takedown). */
  alreadyDeleted: number;
  /** `--ids` that no mirrored object has. */
  notFound: string[];
  /** OPT-5: `--ids` (or the body) now in the takedown registry of a source, mirrored or not. */
  registered: string[];
  /** Documents items flagged (`takedownAt`, unlisted). */
  documents: number;
  /** OPT-5: stored objects committed again without a taken-down object they embedded (a paper's file). */
  embedders: number;
  /**
   * Issue 25: invalid Sources items the takedown was recorded for all the same (`--ids`), with their
   * problems — no sync runs for them until fixed, and then the takedown holds.
   */
  invalidSources?: { sourceId: string; problems: FieldProblem[] }[];
  /**
   * OPT-2 "at once": what this run changed that a CDN may hold (shared/takedown invalidation.ts) —
   * the objects with their body lists and file URLs, the objects committed again without them, a body.
   */
  change: TakedownChange;
}

function store(deps: TakedownDeps): MirrorStore {
  return new MirrorStore(deps.clients, {
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  });
}

function sealDeps(deps: TakedownDeps): SealDeps {
  return {
    clients: deps.clients,
    bucket: deps.bucket,
    stateTable: deps.tables.state,
    mirrorTable: deps.tables.mirror,
  };
}

/** Tombstones one index entry (index mark, then S3 record). Returns false when it was deleted already. */
async function tombstoneEntry(
  deps: TakedownDeps,
  entry: MirrorIndexEntry,
  mark: TakedownMark,
): Promise<boolean> {
  return sealTakenDown(sealDeps(deps), entry, mark);
}

function documentItems(deps: TakedownDeps): DocumentItems {
  return new DocumentItems({ doc: deps.clients.doc, table: deps.tables.documents });
}

/** Which Documents items of a source a takedown (or its lift) concerns: its body's, or its files'. */
export interface DocumentMatch {
  bodyId?: string;
  fileIds?: ReadonlySet<string>;
}

/** Calls `each` for every Documents item of the source that matches; returns how many matched. */
export async function forMatchingDocuments(
  deps: TakedownDeps,
  sourceId: string,
  match: DocumentMatch,
  each: (item: Record<string, unknown>) => Promise<void>,
): Promise<number> {
  let matched = 0;
  for await (const item of documentItems(deps).ofSource(sourceId)) {
    const hit =
      (match.bodyId !== undefined && item.bodyId === match.bodyId) ||
      (match.fileIds !== undefined && typeof item.fileId === 'string' && match.fileIds.has(item.fileId));
    if (!hit) continue;
    await each(item);
    matched += 1;
  }
  return matched;
}

/**
 * Flags the Documents items of a source that match (`bodyId` or one of `fileIds`): unlisted (DOC-7)
 * and `takedownAt`, for the document cache, preview and deletion check to honour.
 */
function flagDocuments(
  deps: TakedownDeps,
  sourceId: string,
  match: DocumentMatch,
  flag: { at: string; urls?: Set<string> },
): Promise<number> {
  return forMatchingDocuments(deps, sourceId, match, async (item) => {
    // The preview serves each by `documentId(url)`: the CDN paths to invalidate.
    if (typeof item.url === 'string') flag.urls?.add(item.url);
    await documentItems(deps).flagTakenDown(item.docId, flag.at);
  });
}

/** A command's result before anything is done: which sources and body it is about, nothing counted. */
function emptyResult(about: Pick<TombstoneResult, 'sourceIds' | 'body'>): TombstoneResult {
  return {
    ...about,
    tombstoned: {},
    alreadyDeleted: 0,
    notFound: [],
    registered: [],
    documents: 0,
    embedders: 0,
    change: {},
  };
}

function markOf(deps: TakedownDeps, options: TombstoneOptions): TakedownMark {
  if (options.mark !== undefined) return options.mark;
  const { by, note } = options;
  const at = (deps.now ?? (() => new Date()))().toISOString();
  return { at, by, ...(note !== undefined && note.trim() !== '' ? { note: note.trim() } : {}) };
}

/** `tombstone --body <slug>`: every mirrored object of the body, the body itself included. */
export async function tombstoneBody(
  deps: TakedownDeps,
  slug: string,
  options: TombstoneOptions,
  log: TakedownLog = warnLog,
): Promise<TombstoneResult> {
  const { sourceId, body } = await resolveBody(deps.clients.doc, deps.tables, slug, options.sourceId);
  const mark = markOf(deps, options);
  const result = emptyResult({ sourceIds: [sourceId], body: slug });
  const registry = registryOf(deps);
  const item = { sourceId, scope: 'body' as const, id: body.id, type: 'body', mark };
  // OPT-5 first: the registry remembers the body whatever happens to the mirror afterwards. Completing
  // a recorded takedown records nothing anew: a `takedown lift` meanwhile stays lifted.
  if (options.mark === undefined) await registry.record(item);
  result.registered = [body.id];
  await options.afterRecorded?.();
  await takeDownBody(deps, { sourceId, body }, mark, result);
  if (options.mark !== undefined) return flushed(deps, result);
  for (let round = 1; (await registry.find(sourceId, [item])).length === 0; round += 1) {
    logLiftedWhileRecorded(log, round, [item]);
    await registry.record(item);
    if (round > RECORD_AGAIN_ROUNDS) throw liftedTooOften([item], round);
    // Counted once: the redo finds its entries deleted already and adds nothing new to the result.
    await takeDownBody(deps, { sourceId, body }, mark, emptyResult({ sourceIds: [], body: slug }));
  }
  return flushed(deps, result);
}

async function flushed(deps: TakedownDeps, result: TombstoneResult): Promise<TombstoneResult> {
  await deps.clients.changes?.flush();
  return result;
}

/**
 * OPT-5: a registry item this takedown recorded was removed by a `takedown lift` before the command
 * finished — loud, since two operators disagree.
 */
function logLiftedWhileRecorded(
  log: TakedownLog,
  round: number,
  items: readonly Pick<TakedownItem, 'sourceId' | 'scope' | 'id' | 'mark'>[],
): void {
  log(
    round > RECORD_AGAIN_ROUNDS
      ? 'TAKEDOWN LIFTED AGAIN AND AGAIN WHILE BEING RECORDED'
      : 'TAKEDOWN LIFTED WHILE BEING RECORDED',
    {
      items: items.map((i) => ({ sourceId: i.sourceId, scope: i.scope, id: i.id })),
      takedownBy: items[0]?.mark.by,
      round,
    },
  );
}

/**
 * Past RECORD_AGAIN_ROUNDS: the items are recorded again (in force, as after a takedown killed after
 * step 1 — never lost) but the mirror steps are not repeated; the operator decides.
 */
function liftedTooOften(items: readonly Pick<TakedownItem, 'id'>[], round: number): TakedownError {
  return new TakedownError(
    'TAKEDOWN_LIFTED_WHILE_RECORDED',
    `takedown of ${items.map((i) => i.id).join(', ')} lifted ${round} times while this command ran: ` +
      'recorded again and in force, its marks perhaps incomplete — once the other operator is done, run ' +
      'this command again (or `ingestor backfill-index`) to complete it, or lift it (OPT-5).',
  );
}

/** Steps 2–3 of `tombstone --body`, after its registry item: unlisted, every entry sealed, flagged, marked. */
async function takeDownBody(
  deps: TakedownDeps,
  { sourceId, body }: { sourceId: string; body: { id: string; bodyKey: string } },
  mark: TakedownMark,
  result: TombstoneResult,
): Promise<void> {
  const bodyRecords = new BodyRecords({ doc: deps.clients.doc, table: deps.tables.state });
  // Unlisted next: from this moment the body is in no public listing, whatever follows (ONB-4, OPT-2).
  await bodyRecords.unlist(sourceId, body.bodyKey);
  const mirror = store(deps);
  for (const type of MIRROR_TYPES) {
    // Strongly consistent: an object a running sync created before our registry item must be seen.
    for await (const entry of mirror.listAll(sourceId, type, { bodyId: body.id, consistent: true })) {
      if (await tombstoneEntry(deps, entry, mark)) {
        result.tombstoned[type] = (result.tombstoned[type] ?? 0) + 1;
      } else {
        result.alreadyDeleted += 1;
      }
    }
  }
  const fileUrls = new Set<string>();
  result.documents = await flagDocuments(
    deps,
    sourceId,
    { bodyId: body.id },
    { at: mark.at, urls: fileUrls },
  );
  result.change = { body: { sourceId, id: body.id, fileUrls: [...fileUrls] } };
  // The record's mark last, once everything above is done: it tells `completeTakedowns` (and an
  // operator's `ingestor bodies`) that the takedown is complete; a run killed earlier leaves it off.
  // `listed` again: an operator may have listed the body meanwhile (only the mark forbids that).
  await bodyRecords.markTakenDown(sourceId, body.bodyKey, { ...mark });
}

function registryOf(deps: TakedownDeps): TakedownRegistry {
  return new TakedownRegistry(deps.clients.doc, deps.tables.state);
}

/** A Sources item as a takedown sees it: who it is and which host it names, read leniently (OPT-5). */
interface TakedownCandidate {
  /** The item's key as stored (the mirror's partition), also for an item whose key is invalid. */
  label: string;
  /** The valid `sourceId`, undefined when the item's own key is broken (nothing can be recorded for it). */
  sourceId?: string;
  /** `hostKey(systemUrl)`, undefined when the systemUrl cannot be read. */
  host?: string;
  kind?: SourceConfig['kind'];
  /** Set for an invalid item: its problems, per field, as `ingestor status` shows them. */
  problems?: FieldProblem[];
}

/** Every Sources item, valid or not, with what a takedown needs of it (OPT-5: a typo never blocks one). */
async function takedownCandidates(deps: TakedownDeps): Promise<TakedownCandidate[]> {
  const { parsed, raw } = await loadAllSources(deps.clients.doc, deps.tables.sources);
  return parsed.map((p): TakedownCandidate => {
    if (p.ok)
      return {
        label: p.source.sourceId,
        sourceId: p.source.sourceId,
        host: p.source.host,
        kind: p.source.kind,
      };
    const owner = salvageSourceOwner(raw.get(p.sourceId));
    return { label: p.sourceId, ...owner, problems: p.problems };
  });
}

/** `field: message; …` of an invalid item, for on-call. */
function problemsText(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}

/**
 * OPT-5: the invalid items that might own `id` but for which nothing could be recorded — their host
 * cannot be read (a broken systemUrl), or it is the id's host but their own key is broken.
 */
function blockingItems(candidates: readonly TakedownCandidate[], id: string): TakedownCandidate[] {
  const host = hostKeyOrUndefined(id);
  return candidates.filter(
    (c) =>
      c.problems !== undefined && (c.host === undefined || (c.sourceId === undefined && c.host === host)),
  );
}

/** Logs a takedown decision loudly (one JSON line on stderr), as `takedown lift` does. */
export type TakedownLog = (event: string, fields: Record<string, unknown>) => void;

const warnLog: TakedownLog = (event, fields) =>
  console.warn(JSON.stringify({ level: 'WARN', event, ...fields }));

/**
 * `tombstone --ids <id,…>`: the objects with these OParl ids (URLs) — in every source, or in one —
 * and the objects embedded in them (a paper's files and consultations, a meeting's agenda items …),
 * which would otherwise stay visible on their own.
 *
 * OPT-5: an id is recorded in the registry of every source it belongs to *before* the mirror is read —
 * each source (of `--source`, or all) on the id's host (`hostKey`: an OParl id is a URL of its system)
 * — so an object a running sync is about to create for the first time, or one purged before, is
 * covered too. Sources where the id is found on another host get it recorded when found.
 *
 * Issue 25: a Sources item made invalid by a hand edit still owns its host — its sourceId and
 * systemUrl are read leniently (`salvageSourceOwner`), the takedown is recorded for it and logged
 * loudly. Where an invalid item makes the owner of an id unknowable (its systemUrl or its key is the
 * broken field) and no source holds the id, the command refuses with TAKEDOWN_OWNER_UNKNOWN naming the
 * item and its fields — after recording everything it could (the safe outcome).
 */
export async function tombstoneIds(
  deps: TakedownDeps,
  ids: readonly string[],
  options: TombstoneOptions,
  log: TakedownLog = warnLog,
): Promise<TombstoneResult> {
  const wanted = [...new Set(ids.map((id) => id.trim()).filter((id) => id !== ''))];
  if (wanted.length === 0) throw new TakedownError('TAKEDOWN_INVALID_INPUT', 'no ids given');
  const all = await takedownCandidates(deps);
  const sources = options.sourceId === undefined ? all : all.filter((s) => s.label === options.sourceId);
  if (options.sourceId !== undefined && sources.length === 0) {
    throw new TakedownError('TAKEDOWN_NOTHING_FOUND', `no source ${options.sourceId}`);
  }
  const mark = markOf(deps, options);
  const registrar = new IdRegistrar(registryOf(deps), mark);
  for (const source of sources) {
    const { sourceId, host } = source;
    if (sourceId === undefined) continue;
    for (const id of wanted) {
      // Completing a recorded takedown (`options.mark`) records the ids themselves not anew — a
      // `takedown lift` meanwhile stays lifted; embedded objects found below are recorded as ever.
      if (options.mark !== undefined) registrar.recordedIn.add(`${sourceId}\n${id}`);
      else if (host !== undefined && hostKeyOrUndefined(id) === host) await registrar.record(sourceId, id);
    }
  }
  await options.afterRecorded?.();
  const run: IdsTakedown = {
    deps,
    mark,
    registrar,
    mirror: store(deps),
    result: emptyResult({ sourceIds: [], body: null }),
    objects: [],
    embedders: [],
    found: new Set<string>(),
  };
  for (const source of sources) await takeDownInSource(run, source, wanted);
  for (let round = 1; ; round += 1) {
    const lifted = await registrar.liftedMeanwhile();
    if (lifted.length === 0) break;
    logLiftedWhileRecorded(log, round, lifted);
    for (const item of lifted) await registrar.recordAgain(item);
    if (round > RECORD_AGAIN_ROUNDS) throw liftedTooOften(lifted, round);
    // Counted once: the redo finds its entries deleted already and adds nothing new to the result.
    const redo: IdsTakedown = {
      ...run,
      result: emptyResult({ sourceIds: [], body: null }),
      objects: [],
      embedders: [],
    };
    for (const source of sources) {
      const ids = lifted.filter((i) => i.sourceId === source.label).map((i) => i.id);
      if (ids.length > 0) await takeDownInSource(redo, source, ids);
    }
  }
  const { result } = run;
  // In force also where nothing is mirrored (yet, or any more after a purge).
  const registered = new Set<string>();
  for (const key of registrar.recordedIn) {
    const [sourceId, id] = key.split('\n') as [string, string];
    registered.add(id);
    if (!result.sourceIds.includes(sourceId)) result.sourceIds.push(sourceId);
  }
  result.registered = wanted.filter((id) => registered.has(id));
  result.notFound = wanted.filter((id) => !run.found.has(id));
  result.change = { objects: run.objects, embedders: run.embedders };
  await deps.clients.changes?.flush();
  reportInvalidOwners(run, { sources, wanted, log });
  refuseUnowned({ sources, unowned: wanted.filter((id) => !registered.has(id)), log }, result.registered);
  return result;
}

/**
 * OPT-5: the registry items of one `--ids` run, each (source, id) recorded once — `recordedIn` also
 * holds those a completed takedown recorded earlier.
 */
class IdRegistrar {
  readonly recordedIn = new Set<string>();
  /** The items this run wrote itself (not those of a completed takedown), for `liftedMeanwhile`. */
  private readonly written: TakedownItem[] = [];

  constructor(
    private readonly registry: TakedownRegistry,
    private readonly mark: TakedownMark,
  ) {}

  async record(sourceId: string, id: string, type?: string): Promise<void> {
    const key = `${sourceId}\n${id}`;
    if (this.recordedIn.has(key)) return;
    this.recordedIn.add(key);
    const item: TakedownItem = {
      sourceId,
      scope: 'object',
      id,
      ...(type !== undefined ? { type } : {}),
      mark: this.mark,
    };
    this.written.push(item);
    await this.registry.record(item);
  }

  /** OPT-5: the items this run wrote that a `takedown lift` removed since (strongly consistent reads). */
  async liftedMeanwhile(): Promise<TakedownItem[]> {
    const lifted: TakedownItem[] = [];
    for (const sourceId of new Set(this.written.map((i) => i.sourceId))) {
      const mine = this.written.filter((i) => i.sourceId === sourceId);
      const present = new Set((await this.registry.find(sourceId, mine)).map((i) => i.id));
      lifted.push(...mine.filter((i) => !present.has(i.id)));
    }
    return lifted;
  }

  async recordAgain(item: TakedownItem): Promise<void> {
    await this.registry.record(item);
  }
}

/** What one `--ids` run carries from source to source: its mark, registry, mirror and findings. */
interface IdsTakedown {
  deps: TakedownDeps;
  mark: TakedownMark;
  registrar: IdRegistrar;
  mirror: MirrorStore;
  result: TombstoneResult;
  /** The objects taken down, for the CDN (OPT-2 "at once"). */
  objects: TakedownTarget[];
  /** The objects committed again without a taken-down one. */
  embedders: Pick<TakedownTarget, 'sourceId' | 'type' | 'id' | 'bodyId' | 'lists'>[];
  /** Ids found in some source's mirror. */
  found: Set<string>;
}

/** The wanted ids and everything embedded in them, in one source: recorded, tombstoned, flagged. */
async function takeDownInSource(
  run: IdsTakedown,
  source: TakedownCandidate,
  wanted: readonly string[],
): Promise<void> {
  const { deps, mirror, result } = run;
  const sourceId = source.label;
  const entries = await mirror.lookup(
    sourceId,
    wanted.flatMap((id) => MIRROR_TYPES.map((type) => ({ type, id }))),
    { consistent: true },
  );
  if (entries.size === 0) return;
  const queue = [...entries.values()];
  const done = new Set<string>();
  const fileIds = new Set<string>();
  const takenDown: TakenDownObject[] = [];
  while (queue.length > 0) {
    const entry = queue.shift() as MirrorIndexEntry;
    const key = `${entry.type}\n${entry.id}`;
    if (done.has(key)) continue;
    done.add(key);
    const object = await takeDownEntry(run, sourceId, entry);
    takenDown.push(object.takenDown);
    queue.push(...object.embedded);
    if (entry.type === 'file') fileIds.add(entry.id);
  }
  // Last: the objects that embed them (again on a repeated command, which completes a killed one).
  result.embedders += await commitEmbeddersWithout(deps, { sourceId, kind: source.kind }, takenDown, (e) =>
    run.embedders.push({
      sourceId,
      type: e.type,
      id: e.id,
      ...(e.bodyId !== undefined ? { bodyId: e.bodyId, lists: bodyListsOf(e.type) } : {}),
    }),
  );
  result.sourceIds.push(sourceId);
  if (fileIds.size > 0) {
    const urls = new Set<string>();
    result.documents += await flagDocuments(deps, sourceId, { fileIds }, { at: run.mark.at, urls });
    const target = run.objects.find((o) => o.sourceId === sourceId && o.type === 'file');
    // Documents items name every URL the preview serves for these files; one target carries them.
    if (target !== undefined) target.fileUrls = [...new Set([...(target.fileUrls ?? []), ...urls])];
  }
}

/**
 * One mirrored object: recorded with the objects it embeds (OPT-5), then tombstoned. Returns what the
 * embedders' commit needs of it and the index entries of its embedded objects (taken down next).
 */
async function takeDownEntry(
  run: IdsTakedown,
  sourceId: string,
  entry: MirrorIndexEntry,
): Promise<{ takenDown: TakenDownObject; embedded: MirrorIndexEntry[] }> {
  const { mirror, registrar, result } = run;
  run.found.add(entry.id);
  // Registry first for this object and each embedded one (OPT-5), then the mirror.
  await registrar.record(sourceId, entry.id, entry.type);
  // Embedded objects of this one (read before its record turns into a tombstone).
  const stored = await mirror.read(sourceId, entry.type, entry.id);
  const live = stored && stored.meta.deleted !== true ? stored.object : stored?.meta.lastGood;
  const embeddedIn = stored?.meta.embeddedIn;
  const takenDown: TakenDownObject = {
    type: entry.type,
    id: entry.id,
    object: isRecord(live) ? live : undefined,
    ...(embeddedIn !== undefined ? { embeddedIn } : {}),
  };
  const embedded: MirrorIndexEntry[] = [];
  if (isRecord(live)) {
    const children = embeddedObjects(live).map((e) => ({ type: e.type, id: e.id }));
    if (children.length > 0) {
      for (const child of children) await registrar.record(sourceId, child.id, child.type);
      embedded.push(...(await mirror.lookup(sourceId, children, { consistent: true })).values());
    }
  }
  const url = entry.type === 'file' && isRecord(live) ? fileUrl(live) : undefined;
  run.objects.push({
    sourceId,
    type: entry.type,
    id: entry.id,
    ...(entry.bodyId !== undefined ? { bodyId: entry.bodyId, lists: bodyListsOf(entry.type) } : {}),
    ...(url !== undefined ? { fileUrls: [url] } : {}),
  });
  if (await tombstoneEntry(run.deps, entry, run.mark)) {
    result.tombstoned[entry.type] = (result.tombstoned[entry.type] ?? 0) + 1;
  } else {
    result.alreadyDeleted += 1;
  }
  return { takenDown, embedded };
}

/**
 * Loudly: a takedown recorded for an item no sync can run until it is fixed — on-call must fix it,
 * and the takedown then holds (the sync meets the registry item, OPT-5).
 */
function reportInvalidOwners(
  { result, registrar }: IdsTakedown,
  {
    sources,
    wanted,
    log,
  }: { sources: readonly TakedownCandidate[]; wanted: readonly string[]; log: TakedownLog },
): void {
  result.invalidSources = sources
    .filter(
      (s) => s.problems !== undefined && s.sourceId !== undefined && result.sourceIds.includes(s.sourceId),
    )
    .map((s) => ({ sourceId: s.label, problems: s.problems ?? [] }));
  for (const invalid of result.invalidSources) {
    log('TAKEDOWN RECORDED FOR AN INVALID SOURCES ITEM', {
      sourceId: invalid.sourceId,
      problems: problemsText(invalid.problems),
      ids: wanted.filter((id) => registrar.recordedIn.has(`${invalid.sourceId}\n${id}`)),
    });
  }
}

/** TAKEDOWN_OWNER_UNKNOWN where an invalid item may own ids nothing was recorded for (issue 25). */
function refuseUnowned(
  {
    sources,
    unowned,
    log,
  }: { sources: readonly TakedownCandidate[]; unowned: readonly string[]; log: TakedownLog },
  registered: readonly string[],
): void {
  const blocking = new Map<string, TakedownCandidate>();
  for (const id of unowned) for (const c of blockingItems(sources, id)) blocking.set(c.label, c);
  if (blocking.size === 0) return;
  const items = [...blocking.values()]
    .map((c) => `Sources item "${c.label}" is invalid (${problemsText(c.problems ?? [])})`)
    .join('; ');
  log('TAKEDOWN NOT RECORDED: OWNER UNKNOWN', { ids: unowned, items: [...blocking.keys()] });
  throw new TakedownError(
    'TAKEDOWN_OWNER_UNKNOWN',
    `takedown NOT recorded for ${unowned.join(', ')}: no source on their host and no mirror holds them, ` +
      `and ${items}, so it may own them. Fix the item (ingestor status lists its problems) and run the ` +
      `command again${registered.length > 0 ? ` (recorded meanwhile: ${registered.join(', ')})` : ''} (OPT-5).`,
  );
}

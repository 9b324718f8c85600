import {
  isDeleted,
  isRecord,
  type OParlObject,
  objectId,
  pageGoesBack,
  pageIdentity,
  pageItems,
  pageNext,
  StopRun,
  type SystemRecord,
  textValue,
} from '../engine';
import { bodyFieldsOf, bodyKeyOf } from './body-fields';
import { openBodyPageDigest, saveBodyPageDigest } from './body-page-digest';
import { BODY_LIST_MAX_PAGES } from './constants';
import { parseOParlJson } from './json';
import { hostOf, pruneValidators, rememberPage, urlKey } from './pages';
import { OParlFetchError, type OParlResponse } from './ports';
import type { OParlRun } from './run-context';

/** The System (its body list URL) and the body list (SCH-8: all pages, at most 20), ONB-4 bodies. */
export async function phaseSystem(run: OParlRun): Promise<void> {
  run.system = await run.state.getSystem();
  // The System only tells us the body list URL; incremental syncs reuse the stored one (SCH-8 asks
  // for the body list on every sync, not the System).
  if (run.options.kind === 'incremental' && run.system && run.system.systemUrl === run.source.systemUrl) {
    run.cursor.phase = 'bodies';
    return;
  }
  run.frame.checkStop();
  const url = run.source.systemUrl;
  const res = await run.request(url, 'system');
  if (res instanceof OParlFetchError) {
    run.pageFailed(res, url, 'system');
    if (!run.system) throw new StopRun('failure');
  } else {
    let obj: OParlObject | undefined;
    try {
      const parsed = parseOParlJson(res.text);
      obj = isRecord(parsed) ? parsed : undefined;
    } catch (err) {
      run.frame.failure({ kind: 'other', url, list: 'system', detail: (err as Error).message });
    }
    const bodyListUrl = obj ? textValue(obj.body) : undefined;
    if (obj && bodyListUrl) {
      await run.processObjects([obj], { listType: 'system', pageUrl: res.url, body: undefined });
      run.system = {
        ...(run.system ?? {}),
        systemUrl: run.source.systemUrl,
        bodyListUrl: new URL(bodyListUrl, res.url).toString(),
        fetchedAt: run.nowIso(),
        ...(textValue(obj.oparlVersion) ? { oparlVersion: textValue(obj.oparlVersion) } : {}),
      };
      await run.state.putSystem(run.system);
    } else {
      if (obj)
        run.frame.failure({ kind: 'other', url, list: 'system', detail: 'System has no body list URL' });
      if (!run.system) throw new StopRun('failure');
    }
  }
  run.cursor.phase = 'bodies';
  await run.frame.checkpoint();
}

/**
 * The body list walked page by page (SCH-8, at most BODY_LIST_MAX_PAGES), resumable from the cursor; then
 * the bodies whose lists this run reads.
 */
export async function phaseBodies(run: OParlRun): Promise<void> {
  run.system ??= await run.state.getSystem();
  if (!run.system) {
    run.cursor.phase = 'system';
    return;
  }
  const system = run.system;
  run.cursor.bodyList ??= { url: system.bodyListUrl, pages: 0, visited: [], bodyKeys: [] };
  const walk: BodyListWalk = { run, system, bl: run.cursor.bodyList };
  let truncated = false;
  while (walk.bl.url !== null) {
    if (walk.bl.pages >= BODY_LIST_MAX_PAGES) {
      truncated = true;
      run.log('body-list-truncated', { pages: walk.bl.pages });
      break;
    }
    run.frame.checkStop();
    const page = await readBodyListPage(walk, walk.bl.url);
    if (!page) break; // the walk failed; bodies known from earlier runs stand in (bodyKeysToSync)
    if (followBodyList(walk, page) === 'truncated') truncated = true;
    await run.frame.checkpoint();
  }
  if (system.validators) await run.state.putSystem(system);
  run.cursor.bodyKeys = await bodyKeysToSync(run, walk.bl, truncated);
  run.cursor.bodyIndex = 0;
  run.cursor.listIndex = 0;
  run.cursor.phase = 'lists';
  await run.frame.checkpoint();
}

type BodyListCursor = NonNullable<OParlRun['cursor']['bodyList']>;

/** The body list's walk: the run, the System whose validators it keeps, and the walk's cursor. */
interface BodyListWalk {
  run: OParlRun;
  system: SystemRecord;
  bl: BodyListCursor;
}

/** One page of the body list as read: its URL, the keys of its bodies, and `links.next`. */
interface BodyListPage {
  url: string;
  keys: string[];
  next: string | undefined;
}

/**
 * One page of the body list: asked with its validator (B-1: a 304 repeats the remembered bodies), its
 * bodies recorded. `undefined` when it could not be read — the walk is marked failed and ends.
 */
async function readBodyListPage(walk: BodyListWalk, url: string): Promise<BodyListPage | undefined> {
  const { run, system, bl } = walk;
  const validator = system.validators?.[urlKey(url)];
  const res = await run.request(url, 'body', validator);
  if (res instanceof OParlFetchError) {
    run.pageFailed(res, url, 'body');
    return failBodyList(bl);
  }
  if (res.status === 304 && validator) {
    return { url, keys: [...(validator.bodyKeys ?? [])], next: validator.next ?? undefined };
  }
  let parsed: unknown;
  try {
    parsed = parseOParlJson(res.text);
  } catch (err) {
    run.frame.failure({ kind: 'other', url, list: 'body', detail: (err as Error).message });
    return failBodyList(bl);
  }
  const items = pageItems(parsed);
  const keys: string[] = [];
  for (const item of items) {
    const key = await processBody(run, item, res.url);
    if (key !== undefined) keys.push(key);
  }
  const page = { url, keys, next: endOnRepeatedPage(walk, url, { items, next: pageNext(parsed, res.url) }) };
  rememberBodyListValidators(walk, page, res);
  return page;
}

function failBodyList(bl: BodyListCursor): undefined {
  bl.failed = true;
  bl.url = null;
  return undefined;
}

/**
 * SCH-8: some servers (SOMACOS SessionNet of shared data centres) serve the same page under every
 * `?page=n`, each linking to the next number; without this the walk reads up to the page cap on every
 * sync. The second copy of a page ends it like a cycle of links. Returns where the walk goes next.
 */
function endOnRepeatedPage(
  walk: BodyListWalk,
  url: string,
  page: { items: OParlObject[]; next: string | undefined },
): string | undefined {
  const { run, bl } = walk;
  let next = page.next;
  const digest = pageIdentity(page.items);
  if (next !== undefined && digest !== undefined && digest === bl.lastPageIds) {
    run.log('body-list-page-repeats', { url, next });
    next = undefined;
  }
  if (digest === undefined) delete bl.lastPageIds;
  else bl.lastPageIds = digest;
  return next;
}

/** B-1: the page's validators, with its `next` and body keys for a 304 next time. */
function rememberBodyListValidators(walk: BodyListWalk, page: BodyListPage, res: OParlResponse): void {
  const { run, system } = walk;
  const etag = res.headers.etag;
  const lastModified = res.headers['last-modified'];
  if (etag === undefined && lastModified === undefined) return;
  system.validators = pruneValidators({
    ...(system.validators ?? {}),
    [urlKey(page.url)]: {
      ...(etag !== undefined ? { etag } : {}),
      ...(lastModified !== undefined ? { lastModified } : {}),
      next: page.next ?? null,
      bodyKeys: page.keys,
      at: run.nowIso(),
    },
  });
}

/**
 * The walk takes the page's bodies and moves on: never to another host (`truncated`: the list was not
 * read whole), never in a cycle.
 */
function followBodyList(walk: BodyListWalk, page: BodyListPage): 'truncated' | 'followed' {
  const { run, bl } = walk;
  const { url } = page;
  let next = page.next;
  let followed: 'truncated' | 'followed' = 'followed';
  for (const k of page.keys) if (!bl.bodyKeys.includes(k)) bl.bodyKeys.push(k);
  rememberPage(bl.visited, urlKey(url));
  bl.pages += 1;
  if (next !== undefined && hostOf(next) !== hostOf(url)) {
    run.log('body-list-next-other-host', { next });
    followed = 'truncated';
    next = undefined;
  }
  if (next !== undefined && (bl.visited.includes(urlKey(next)) || pageGoesBack(url, next))) {
    run.log('body-list-next-cycle', { next });
    next = undefined;
  }
  bl.url = next ?? null;
  return followed;
}

/** The bodies this run reads: the body list's, and — while it cannot be read whole — those known before. */
async function bodyKeysToSync(run: OParlRun, bl: BodyListCursor, truncated: boolean): Promise<string[]> {
  const keys = [...bl.bodyKeys];
  if (bl.failed || truncated) {
    // Bodies we know from earlier runs keep being synced while the body list cannot be read whole.
    for (const b of await run.state.getBodies()) {
      const takenDown = b.takedown !== undefined || run.takedowns.body(b.id) !== undefined;
      if (!b.deleted && !takenDown && !keys.includes(b.bodyKey)) keys.push(b.bodyKey);
    }
  }
  return keys.filter((k, i) => keys.indexOf(k) === i);
}

/** Records one Body of the body list; returns its key, or undefined for deleted/invalid entries. */
async function processBody(run: OParlRun, item: OParlObject, pageUrl: string): Promise<string | undefined> {
  const id = objectId(item);
  if (id === undefined) return undefined;
  const bodyKey = bodyKeyOf(id);
  const nowIso = run.nowIso();
  if (isDeleted(item)) {
    await run.processObjects([item], { listType: 'body', pageUrl, body: undefined });
    const known = await run.state.getBody(bodyKey);
    if (known && !known.deleted) {
      const { slug, listed, firstSeenAt, lastCompleteSyncStart, lastCompleteFullSyncStart, ...rest } = known;
      await run.state.upsertBody({ ...rest, lastSeenAt: nowIso, deleted: true }, slug);
    }
    return undefined;
  }
  // Neither deleted nor without an id (both handled above): the fields are there.
  const { fields, slugBase } = bodyFieldsOf(item, pageUrl, nowIso)!;
  const record = await run.state.upsertBody(fields, slugBase);
  run.bodies.set(bodyKey, record);
  // OPT-2/OPT-5: a body an operator took down is neither written nor are its lists fetched again —
  // the registry remembers it also when a purge or a lost BODY# mark forgot it.
  if (record.takedown !== undefined || run.takedowns.body(record.id) !== undefined) return undefined;
  // Issue 28: the embedded objects decided before are not read again (body-page-digest.ts).
  const open = await openBodyPageDigest(run, record);
  await run.processObjects([item], {
    listType: 'body',
    pageUrl,
    body: record,
    ...(open ? { digest: open.digest } : {}),
  });
  await saveBodyPageDigest(run, record, open);
  return bodyKey;
}

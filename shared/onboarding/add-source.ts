import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { parseSourceItem, type SourceConfig, type SourceItem, sourceIdFromUrl } from '../config';
import {
  isRecord,
  type OParlObject,
  pageGoesBack,
  pageIdentity,
  pageItems,
  pageNext,
  SyncStateStore,
  textValue,
} from '../engine';
import { IngestorError } from '../errors';
import { createRunContext, type FetchOptions, fetchSourceOf, type PoliteFetcher } from '../fetch';
import { BODY_LIST_MAX_PAGES, bodyFieldsOf, parseOParlJson } from '../oparl';
import { getSourceItem, putSourceItem, type StoreTables } from '../store';
import { hostKey } from '../util';

/**
 * ONB-2 / ONB-3: adding a source. First the check — robots.txt (the polite fetcher asks it before the
 * first request), then the System and the body list across its pages (≤ 20, SCH-8), all at the host's
 * pace (RATE-2: the largest interval of any source on that host) — then the source is stored, inactive
 * unless activation was asked for *and* the check read the System (ONB-3; a source whose robots.txt
 * forbids or hides the API is never switched on by a tool). The System and the bodies it found are
 * recorded in the State table as the sync would record them: bodies unlisted, with their slugs (ONB-4).
 * An existing source keeps its state and is not fetched again (ONB-3).
 */

export interface AddSourceDeps {
  doc: DynamoDBDocumentClient;
  tables: Pick<StoreTables, 'sources' | 'state'>;
  fetcher: PoliteFetcher;
  /** RATE-2: the largest interval (ms) configured for any source on `host`. */
  hostIntervalMs?: (host: string) => number | undefined;
  now?: () => Date;
  onProgress?: (line: string) => void;
}

export interface AddSourceInput {
  systemUrl: string;
  sourceId?: string;
  /** Further Sources item fields (name, kind, adapter, requestIntervalSeconds, note …), validated. */
  fields?: Record<string, unknown>;
  /** `sources import --activate` (ONB-3). */
  activate?: boolean;
  updatedBy: string;
}

export type RobotsCheck = 'allowed' | 'disallowed' | 'unreachable' | 'not-checked';

export interface SourceCheck {
  /** True when the System was read (the body list may still be partial, see `bodiesComplete`). */
  ok: boolean;
  robots: RobotsCheck;
  system: { url: string; oparlVersion: string | null; bodyListUrl: string } | null;
  bodyListPages: number;
  bodiesComplete: boolean;
  /** Why the check is not ok or not complete, for people. */
  problem?: string;
  /** The error code behind `problem` (ROBOTS_DISALLOWED, HTTP_STATUS …). */
  code?: string;
}

export interface AddedBody {
  slug: string;
  name: string;
  listed: boolean;
}

export interface AddSourceResult {
  sourceId: string;
  systemUrl: string;
  created: boolean;
  active: boolean;
  /** Null when the source existed already (nothing was fetched). */
  check: SourceCheck | null;
  bodies: AddedBody[];
  /** Why an activation asked for did not happen. */
  notActivated?: string;
}

export class SourceItemInvalidError extends IngestorError {
  constructor(message: string) {
    super('CONFIG_INVALID', message);
  }
}

/** Validates the item a tool would store (strict Sources schema); throws CONFIG_INVALID. */
export function sourceItemFor(input: AddSourceInput, nowIso: string): SourceItem & Record<string, unknown> {
  const item: Record<string, unknown> = {
    ...(input.fields ?? {}),
    sourceId: input.sourceId ?? sourceIdFromUrl(input.systemUrl),
    systemUrl: input.systemUrl,
    active: false,
    createdAt: nowIso,
    updatedAt: nowIso,
    updatedBy: input.updatedBy,
  };
  for (const [k, v] of Object.entries(item)) if (v === undefined) delete item[k];
  const parsed = parseSourceItem(item);
  if (!parsed.ok) {
    throw new SourceItemInvalidError(
      `source ${parsed.sourceId}: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  }
  return item as SourceItem & Record<string, unknown>;
}

function robotsFromCode(code: string | undefined): RobotsCheck {
  if (code === 'ROBOTS_DISALLOWED') return 'disallowed';
  if (code === 'ROBOTS_UNREACHABLE') return 'unreachable';
  // HOST_SLOT_TIMEOUT may stop before robots.txt was read; say so rather than "allowed".
  if (code === 'HOST_SLOT_TIMEOUT') return 'not-checked';
  return 'allowed';
}

interface FetchedBody {
  item: OParlObject;
  pageUrl: string;
}

/** ONB-2: robots.txt (implicitly, first), System, body list pages — at the source's host pace. */
export async function checkOParlSource(
  source: SourceConfig,
  deps: Pick<AddSourceDeps, 'fetcher' | 'hostIntervalMs' | 'onProgress'>,
): Promise<{ check: SourceCheck; bodies: FetchedBody[] }> {
  const say = deps.onProgress ?? (() => {});
  const runContext = createRunContext(source.sourceId);
  const hostIntervalMs = deps.hostIntervalMs?.(source.host);
  const options: FetchOptions = {
    purpose: 'api',
    source: fetchSourceOf(source),
    runContext,
    ...(hostIntervalMs !== undefined ? { hostIntervalMs } : {}),
  };
  const check: SourceCheck = {
    ok: false,
    robots: 'not-checked',
    system: null,
    bodyListPages: 0,
    bodiesComplete: false,
  };
  const bodies: FetchedBody[] = [];
  const fail = (error: unknown, what: string) => {
    const code = (error as { code?: unknown }).code;
    check.code = typeof code === 'string' ? code : 'ERROR';
    check.problem = `${what}: ${error instanceof Error ? error.message : String(error)}`;
  };

  say(`check ${source.systemUrl}`);
  let system: OParlObject | undefined;
  let systemUrl = source.systemUrl;
  try {
    const res = await deps.fetcher.fetch(source.systemUrl, options);
    check.robots = 'allowed';
    systemUrl = res.finalUrl;
    const parsed = parseOParlJson(res.body.toString('utf8'));
    system = isRecord(parsed) ? parsed : undefined;
  } catch (error) {
    check.robots = robotsFromCode((error as { code?: string }).code);
    fail(error, 'System');
    return { check, bodies };
  }
  const bodyList = system ? textValue(system.body) : undefined;
  if (!system || bodyList === undefined) {
    check.code = 'NOT_AN_OPARL_SYSTEM';
    check.problem = 'the answer is not an OParl System with a body list URL';
    return { check, bodies };
  }
  const bodyListUrl = new URL(bodyList, systemUrl).toString();
  check.ok = true;
  check.system = {
    url: source.systemUrl,
    oparlVersion: textValue(system.oparlVersion) ?? null,
    bodyListUrl,
  };

  // SCH-8: the body list across all pages (links.next), at most 20; same host only, no cycles.
  let next: string | undefined = bodyListUrl;
  const visited = new Set<string>();
  let lastPage: string | undefined;
  while (next !== undefined) {
    if (check.bodyListPages >= BODY_LIST_MAX_PAGES) {
      check.problem = `the body list has more than ${BODY_LIST_MAX_PAGES} pages; read the first ${BODY_LIST_MAX_PAGES} (SCH-8)`;
      return { check, bodies };
    }
    const url: string = next;
    visited.add(url);
    let page: unknown;
    let pageUrl = url;
    try {
      const res = await deps.fetcher.fetch(url, options);
      pageUrl = res.finalUrl;
      page = parseOParlJson(res.body.toString('utf8'));
    } catch (error) {
      fail(error, `body list page ${check.bodyListPages + 1}`);
      return { check, bodies };
    }
    check.bodyListPages += 1;
    const items = pageItems(page);
    // The same page again under the next number: the list goes round (SOMACOS); its copy adds nothing.
    const identity = pageIdentity(items);
    const repeats = identity !== undefined && identity === lastPage;
    lastPage = identity;
    if (!repeats) for (const item of items) bodies.push({ item, pageUrl });
    const candidate = pageNext(page, pageUrl);
    if (
      repeats ||
      candidate === undefined ||
      visited.has(candidate) ||
      pageGoesBack(pageUrl, candidate) ||
      hostKey(candidate) !== hostKey(pageUrl)
    ) {
      next = undefined;
    } else {
      next = candidate;
    }
  }
  check.bodiesComplete = true;
  return { check, bodies };
}

export async function addSource(deps: AddSourceDeps, input: AddSourceInput): Promise<AddSourceResult> {
  const now = (deps.now ?? (() => new Date()))();
  const nowIso = now.toISOString();
  const item = sourceItemFor(input, nowIso);
  const sourceId = String(item.sourceId);
  const existing = await getSourceItem(deps.doc, deps.tables.sources, sourceId);
  if (existing) {
    // ONB-3: an existing source keeps its state; nothing is fetched for it.
    return {
      sourceId,
      systemUrl: String(existing.systemUrl ?? input.systemUrl),
      created: false,
      active: existing.active === true || existing.active === 'true',
      check: null,
      bodies: [],
    };
  }
  const parsed = parseSourceItem(item);
  if (!parsed.ok) throw new SourceItemInvalidError(`source ${sourceId} is invalid`);
  const source = parsed.source;

  let check: SourceCheck;
  let fetched: FetchedBody[] = [];
  if (source.kind === 'scraper') {
    // ONB-2 names the OParl System and body list; a scraper source is checked by its first sync.
    check = {
      ok: true,
      robots: 'not-checked',
      system: null,
      bodyListPages: 0,
      bodiesComplete: false,
      problem: 'scraper source: no OParl System to check',
    };
  } else {
    ({ check, bodies: fetched } = await checkOParlSource(source, deps));
  }

  let notActivated: string | undefined;
  const activate = input.activate === true && check.ok && source.kind === 'oparl';
  if (input.activate === true && !activate) {
    notActivated = check.problem ?? 'the check did not read an OParl System';
  }
  if (activate) item.active = true;
  const { written } = await putSourceItem(deps.doc, deps.tables.sources, item, { mustNotExist: true });
  if (!written) {
    // Created by someone else meanwhile: theirs stands (ONB-3).
    return { sourceId, systemUrl: source.systemUrl, created: false, active: false, check, bodies: [] };
  }

  const bodies: AddedBody[] = [];
  if (check.system) {
    const state = new SyncStateStore({ doc: deps.doc }, deps.tables.state, sourceId);
    await state.putSystem({
      systemUrl: source.systemUrl,
      bodyListUrl: check.system.bodyListUrl,
      ...(check.system.oparlVersion !== null ? { oparlVersion: check.system.oparlVersion } : {}),
      fetchedAt: nowIso,
    });
    const seen = new Set<string>();
    for (const { item: body, pageUrl } of fetched) {
      const derived = bodyFieldsOf(body, pageUrl, nowIso);
      if (!derived || seen.has(derived.fields.bodyKey)) continue;
      seen.add(derived.fields.bodyKey);
      // ONB-4: created unlisted; `listed` and `slug` are never touched by later syncs.
      const record = await state.upsertBody(derived.fields, derived.slugBase);
      bodies.push({ slug: record.slug, name: record.name, listed: record.listed });
    }
  }
  return {
    sourceId,
    systemUrl: source.systemUrl,
    created: true,
    active: activate,
    check,
    bodies,
    ...(notActivated !== undefined ? { notActivated } : {}),
  };
}

import { contentHash, refreshDue, sha256Hex, stableStringify } from '../engine';
import { lookupKey } from '../mirror';
import { replaceFront, type ScrapeContext } from './context';
import type { MirrorTypeName, ShapedObject } from './oparl-shape';
import type { PageKind, PageState, ScrapeTask } from './state';

/**
 * What one detail page yields, against the page's last state: owned objects whose hash differs are
 * written (agenda items with their own detail page wait for it), owned objects no longer on the page are
 * tombstoned, stubs are created when absent; papers of changed agenda rows and never-read organizations
 * become tasks. The page's state is committed after its children (the `commit-page` task, last).
 */

export interface PagePlan {
  /** The page's owned objects by id: type and content hash (its next state). */
  objects: PageState['objects'];
  /** Changed owner objects to write now. */
  write: ShapedObject[];
  /** Owned before, not on the page any more: tombstoned. */
  removed: { id: string; type: MirrorTypeName }[];
  stubs: ShapedObject[];
  /** Agenda item detail pages and papers to read. */
  children: ScrapeTask[];
}

/** The writes and child pages of one page from its shaped objects and its last state. Pure. */
export function planPage(
  before: PageState | undefined,
  shaped: ShapedObject[],
  options: { meetingUrl?: string; readsAgendaItems: boolean },
): PagePlan {
  const owners = dedupe(shaped.filter((o) => o.mode === 'owner'));
  const stubs = dedupe(shaped.filter((o) => o.mode === 'stub'));
  const objects: PageState['objects'] = {};
  const changed: ShapedObject[] = [];
  for (const o of owners) {
    const hash = contentHash(o.object);
    objects[o.id] = { type: o.type, hash };
    if (before?.objects[o.id]?.hash !== hash) changed.push(o);
  }
  const children: ScrapeTask[] = [];
  const write: ShapedObject[] = [];
  const papers = new Set<string>();
  for (const o of changed) {
    const detailUrl = typeof o.object.web === 'string' ? o.object.web : undefined;
    if (
      o.type === 'agendaitem' &&
      options.readsAgendaItems &&
      detailUrl !== undefined &&
      o.object.result !== undefined &&
      options.meetingUrl
    ) {
      // The item has a result: its own page holds minutes and resolution (ALLRIS to020).
      children.push({
        op: 'agenda-item',
        url: detailUrl,
        meetingUrl: options.meetingUrl,
        item: o.object,
        hash: objects[o.id]?.hash ?? '',
      });
    } else {
      write.push(o);
    }
    const paper = o.type === 'agendaitem' ? o.object['mandari:paper'] : undefined;
    if (typeof paper === 'string' && !papers.has(paper)) {
      papers.add(paper);
      children.push({ op: 'paper', url: paper });
    }
  }
  const removed = Object.entries(before?.objects ?? {})
    .filter(([id]) => objects[id] === undefined)
    .map(([id, o]) => ({ id, type: o.type }));
  return { objects, write, removed, stubs, children };
}

/**
 * Pages of stubs just created: an organization never asked in this run (its roster), a person on full
 * scrapes. `asked` is the run's list of organizations asked; the new ones are added to it.
 */
export function stubTasks(
  created: ShapedObject[],
  asked: string[],
  kind: 'incremental' | 'full',
): ScrapeTask[] {
  const tasks: ScrapeTask[] = [];
  for (const o of created) {
    if (o.type === 'organization' && !asked.includes(o.id)) {
      asked.push(o.id);
      tasks.push({
        op: 'organization',
        url: o.id,
        kind: o.object.organizationType === 'Fraktion' ? 'faction' : 'committee',
      });
    }
    // A person without a page of their own has an id inside another page (`…#person-…`, a SessionNet
    // member without a person link): there is nothing to fetch for them.
    if (o.type === 'person' && kind === 'full' && !new URL(o.id).hash)
      tasks.push({ op: 'person', url: o.id });
  }
  return tasks;
}

/** The page's state to commit: its objects, one hash over them, when it was read. Pure. */
export function pageStateOf(page: Omit<PageState, 'hash'>): PageState {
  const { url, kind, objects, fetchedAt, notPublicSince } = page;
  return {
    url,
    kind,
    hash: sha256Hex(
      Object.entries(objects)
        .map(([id, o]) => `${id}:${o.hash}`)
        .sort()
        .join('\n'),
    ).slice(0, 32),
    objects,
    fetchedAt,
    ...(notPublicSince !== undefined ? { notPublicSince } : {}),
  };
}

/** Kinds whose `fetchedAt` decides when the page is read again (roster-tasks `organizationsToAsk`). */
const FETCHED_AT_READ: ReadonlySet<PageKind> = new Set(['organization', 'person']);

/**
 * Issue 28: whether a page's state must be written. A page read again that yields what its stored state
 * says (a meeting revisited near its day, unchanged) carries no news: only its `fetchedAt` would move,
 * and for meetings, agenda items and papers nobody reads that — it is refreshed once a day
 * (MARK_REFRESH_MS), as the month and list marks are. Pure.
 */
export function pageStateWriteDue(before: PageState | undefined, next: PageState): boolean {
  if (before === undefined || FETCHED_AT_READ.has(next.kind)) return true;
  const same =
    before.kind === next.kind &&
    before.hash === next.hash &&
    before.notPublicSince === next.notPublicSince &&
    stableStringify(before.objects) === stableStringify(next.objects);
  return !same || refreshDue(before.fetchedAt, next.fetchedAt);
}

/** A page read and shaped: its URL and kind, its objects, and how it was reached. */
export interface ShapedPage {
  url: string;
  kind: PageKind;
  shaped: ShapedObject[];
  /** The source redirected to its "not public" page: the state notes since when. */
  notPublic?: boolean;
  /** The meeting an agenda-item or meeting page belongs to (planPage). */
  meetingUrl?: string;
}

/** Writes what one page yields and returns the page's child tasks, the commit of its state last. */
export async function processPage(ctx: ScrapeContext, page: ShapedPage): Promise<ScrapeTask[]> {
  const { url, kind, shaped } = page;
  const before = await ctx.state.getPage(url);
  const plan = planPage(before, shaped, {
    readsAgendaItems: ctx.adapter.parseAgendaItem !== undefined,
    ...(page.meetingUrl ? { meetingUrl: page.meetingUrl } : {}),
  });
  await ctx.writeOwned(plan.write, url);
  if (plan.removed.length > 0) await ctx.tombstone(plan.removed, url);
  const created = await ctx.writeStubs(plan.stubs, url);
  const children = [...plan.children, ...stubTasks(created, ctx.cursor.organizationsAsked, ctx.kind)];
  const fetchedAt = ctx.nowIso();
  const notPublicSince = page.notPublic ? (before?.notPublicSince ?? fetchedAt) : undefined;
  const state = pageStateOf({ url, kind, objects: plan.objects, fetchedAt, notPublicSince });
  if (pageStateWriteDue(before, state)) children.push({ op: 'commit-page', state });
  return children;
}

/**
 * A page read as its kind (paper, organization, person): shaped, and what it yields processed in place
 * of its task. A page that does not read as its layout is noted and yields nothing.
 */
export async function processShapedPage(
  ctx: ScrapeContext,
  url: string,
  kind: Exclude<PageKind, 'meeting' | 'agendaItem'>,
  shape: () => ShapedObject[],
): Promise<void> {
  let shaped: ShapedObject[];
  try {
    shaped = shape();
  } catch (err) {
    ctx.pages.unreadable(err, url, kind);
    return replaceFront(ctx, []);
  }
  return replaceFront(ctx, await processPage(ctx, { url, kind, shaped }));
}

function dedupe(objects: ShapedObject[]): ShapedObject[] {
  const seen = new Map<string, ShapedObject>();
  for (const o of objects) if (!seen.has(lookupKey(o.type, o.id))) seen.set(lookupKey(o.type, o.id), o);
  return [...seen.values()];
}

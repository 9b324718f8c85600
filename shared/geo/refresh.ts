import type { GeoSourceConfig } from '../config';
import { createRunContext } from '../fetch';
import type { MirrorStore } from '../mirror';
import { type OtherFetch, otherFetchErrorText } from '../other-fetch';
import { GEO_ERROR_TEXTS } from './errors';
import { normalisePlans, type PlanFeature, planHash, type SkipReason } from './normalise';
import { planReferencesIn, referenceMatches } from './paper-refs';
import { firstPageUrl, nextPageUrl, parseGeoPage } from './protocol';
import type { GeoRunState, GeoStore, StoredPlan } from './store';

/**
 * One refresh of one geo source (OTH-4): every page of the service through the other-fetch mode,
 * the plans normalised, the stock updated (created / updated / deleted), the FeatureCollection
 * written, the papers of the body linked to the plans they name. A failed or empty answer keeps the
 * stock and records a fixed error text.
 */

export interface GeoRefreshDeps {
  otherFetch: OtherFetch;
  store: GeoStore;
  /** The council mirror, for the body's papers (paper links); absent = no linking. */
  mirror?: MirrorStore;
  now: () => Date;
}

export interface GeoRefreshReport {
  sourceId: string;
  /** Requests answered (pages). */
  fetched: number;
  /** Plans in the stored collection after the run (0 when nothing was stored). */
  stored: number;
  created: number;
  updated: number;
  deleted: number;
  skipped: Partial<Record<SkipReason, number>>;
  repaired: { axesSwapped: number; linksDropped: number };
  /** Papers of the body that name a plan of this source (after the run). */
  linkedPapers: number;
  error?: string;
}

type Pages = { features: unknown[]; fetched: number } | { error: string; fetched: number };

async function fetchAllPages(deps: GeoRefreshDeps, source: GeoSourceConfig): Promise<Pages> {
  const runContext = createRunContext(source.sourceId);
  const features: unknown[] = [];
  const seen = new Set<string>();
  let url: string | undefined = firstPageUrl(source);
  let fetched = 0;
  for (let pageIndex = 0; url !== undefined; pageIndex += 1) {
    // The page cap, and a `next` link that points back: never an endless walk.
    if (pageIndex >= source.maxPages || seen.has(url)) return { error: GEO_ERROR_TEXTS.pageCap, fetched };
    seen.add(url);
    let body: Buffer;
    try {
      body = (await deps.otherFetch.fetch(url, { sourceId: source.sourceId, runContext })).body;
    } catch (error) {
      return { error: otherFetchErrorText(error), fetched };
    }
    fetched += 1;
    const page = parseGeoPage(body);
    if (!page) return { error: GEO_ERROR_TEXTS.invalidGeoJson, fetched };
    features.push(...page.features);
    url = nextPageUrl(source, url, page, pageIndex);
  }
  return { features, fetched };
}

function emptyReport(sourceId: string, fetched: number, error?: string): GeoRefreshReport {
  return {
    sourceId,
    fetched,
    stored: 0,
    created: 0,
    updated: 0,
    deleted: 0,
    skipped: {},
    repaired: { axesSwapped: 0, linksDropped: 0 },
    linkedPapers: 0,
    ...(error === undefined ? {} : { error }),
  };
}

/** OTH-3: the caller refreshes active sources only; this guard makes an inactive one a no-op too. */
export async function refreshGeoSource(
  deps: GeoRefreshDeps,
  source: GeoSourceConfig,
): Promise<GeoRefreshReport> {
  if (!source.active) throw new Error(`geo source ${source.sourceId} is inactive and is never fetched`);
  const { store } = deps;
  const at = deps.now().toISOString();
  const previous = await store.runState(source.sourceId);
  const stock = await store.plans(source.sourceId);

  const fail = async (report: GeoRefreshReport, text: string): Promise<GeoRefreshReport> => {
    const state: GeoRunState = {
      ...previous,
      lastRunAt: at,
      lastError: { at, text },
      failuresInRow: (previous.failuresInRow ?? 0) + 1,
      plans: stock.length,
    };
    await store.putRunState(source.sourceId, state);
    return { ...report, stored: stock.length, error: text };
  };

  const pages = await fetchAllPages(deps, source);
  if ('error' in pages) return fail(emptyReport(source.sourceId, pages.fetched), pages.error);
  const normalised = normalisePlans(source, pages.features);
  const base = {
    ...emptyReport(source.sourceId, pages.fetched),
    skipped: normalised.skipped,
    repaired: normalised.repaired,
  };
  // An empty answer from a service that had plans is the service's failure, not the end of all plans.
  if (normalised.features.length === 0 && stock.length > 0) return fail(base, GEO_ERROR_TEXTS.emptyAnswer);

  const before = new Map(stock.map((p) => [p.planId, p]));
  const next = new Map<string, { feature: PlanFeature; hash: string }>(
    normalised.features.map((feature) => [feature.id, { feature, hash: planHash(feature) }]),
  );
  let created = 0;
  let updated = 0;
  let deleted = 0;
  try {
    // Collection first: the plan items are the commit point a rerun compares against.
    await store.putCollection(source.sourceId, normalised.features, {
      sourceUrl: source.url,
      fetchedAt: at,
      ...(source.attribution === undefined ? {} : { attribution: source.attribution }),
      ...(source.licenseUrl === undefined ? {} : { licenseUrl: source.licenseUrl }),
    });
    for (const [planId, { feature, hash }] of next) {
      const old = before.get(planId);
      if (old?.hash === hash) continue;
      if (old) updated += 1;
      else created += 1;
      const plan: StoredPlan = { ...feature.properties, hash, updatedAt: at };
      await store.putPlan(source.sourceId, plan);
    }
    for (const planId of before.keys()) {
      if (next.has(planId)) continue;
      await store.deletePlan(source.sourceId, planId);
      deleted += 1;
    }
  } catch {
    return fail({ ...base, created, updated, deleted }, GEO_ERROR_TEXTS.storage);
  }
  const plans = [...next.values()].map((n) => n.feature.properties);
  const linkedPapers = await linkPapers(deps, source, plans).catch(() => undefined);
  const skipped = Object.fromEntries(Object.entries(normalised.skipped)) as Record<string, number>;
  await store.putRunState(source.sourceId, {
    lastRunAt: at,
    lastSuccessAt: at,
    plans: next.size,
    lastCounts: { created, updated, deleted, skipped },
    failuresInRow: 0,
    ...(linkedPapers === undefined ? { lastError: { at, text: GEO_ERROR_TEXTS.paperLinks } } : {}),
  });
  return { ...base, stored: next.size, created, updated, deleted, linkedPapers: linkedPapers ?? 0 };
}

/**
 * Which papers of the body name which plans: the titles of the body's mirrored papers, read again only
 * when the paper changed (its index hash), matched against the current plans. Returns how many papers
 * name at least one plan.
 */
async function linkPapers(
  deps: GeoRefreshDeps,
  source: GeoSourceConfig,
  plans: { planId: string; key: string; change?: string }[],
): Promise<number> {
  const { mirror, store } = deps;
  if (!mirror || source.councilSourceId === undefined || source.bodyId === undefined) return 0;
  const known = new Map((await store.paperLinks(source.sourceId)).map((l) => [l.paperId, l]));
  let linked = 0;
  for await (const entry of mirror.listLive(source.councilSourceId, 'paper', { bodyId: source.bodyId })) {
    let link = known.get(entry.id);
    if (!link || link.indexHash !== entry.hash) {
      const record = await mirror.readLive(source.councilSourceId, 'paper', entry.id);
      const name = (record?.object as { name?: unknown } | undefined)?.name;
      link = {
        paperId: entry.id,
        name: typeof name === 'string' ? name : '',
        indexHash: entry.hash,
        planIds: [],
      };
    }
    const refs = planReferencesIn(link.name);
    const planIds = plans.filter((p) => refs.some((r) => referenceMatches(r, p))).map((p) => p.planId);
    const changed =
      known.get(entry.id)?.planIds.join('|') !== planIds.join('|') ||
      known.get(entry.id)?.indexHash !== entry.hash;
    if (changed) await store.putPaperLink(source.sourceId, { ...link, planIds });
    if (planIds.length > 0) linked += 1;
  }
  return linked;
}

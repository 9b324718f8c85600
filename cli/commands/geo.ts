import { DEMO_PLAN_TYPE } from '../../demo';
import { GEO_ITEM_KIND, type GeoSourceItem, geoSourceIdFor, parseGeoSourceItem } from '../../shared/config';
import { IngestorError } from '../../shared/errors';
import { createGeoStore, type GeoRunSummary, loadGeoSources } from '../../shared/geo';
import { MirrorStore } from '../../shared/mirror';
import { redactUrlsIn } from '../../shared/observability';
import { BodyNotFoundError, resolveBody } from '../../shared/onboarding';
import { getSourceItem, mirrorTablePlacement, putOtherItem, setOtherItemActive } from '../../shared/store';
import { composeCli } from '../compose';
import type { LocalRuntime } from '../local/runtime';
import { type CommandResult, UsageError } from '../output';
import type { GeoAddInput } from '.';

/**
 * `geo add|refresh|list|activate|deactivate` (issue 17, OTH-3/OTH-4): geo sources of plan boundaries.
 * `add` stores the source inactive unless `--activate`; `refresh --once` runs one refresh now through the
 * other-fetch mode (the shared pace, no robots.txt); `deactivate` switches a source off on its own — a
 * municipality's request (OTH-3) — and an inactive source is never fetched.
 */

/** `geo add`'s options, as the command table declares them (cli/commands/index.ts). */
export type GeoAddOptions = GeoAddInput;

/** XPlanung's names (BP_Plan `nummer`, `name`) are the defaults. */
export const GEO_DEFAULT_NUMBER_PROPERTY = 'nummer';
export const GEO_DEFAULT_TITLE_PROPERTY = 'name';

class GeoSourceError extends IngestorError {
  constructor(code: 'GEO_SOURCE_INVALID' | 'GEO_SOURCE_EXISTS', message: string) {
    super(code, message);
  }
}

function paramsOf(pairs: string[] | undefined): Record<string, string> | undefined {
  if (!pairs || pairs.length === 0) return undefined;
  const params: Record<string, string> = {};
  for (const pair of pairs.flatMap((p) => p.split('&'))) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--param ${pair}: expected key=value`);
    params[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return params;
}

function filterOf(raw: string | undefined): { property: string; values: string[] } | undefined {
  if (raw === undefined) return undefined;
  const at = raw.indexOf('=');
  const values = raw
    .slice(at + 1)
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  if (at <= 0 || values.length === 0)
    throw new UsageError(`--filter ${raw}: expected property=value1,value2`);
  return { property: raw.slice(0, at), values };
}

/** The council body the slug names, for paper links and the AGS; none yet is fine (links come later). */
async function councilBodyOf(rt: LocalRuntime, slug: string, sourceId: string | undefined) {
  const tables = { sources: rt.env.SOURCES_TABLE, state: rt.env.STATE_TABLE };
  try {
    const { sourceId: councilSourceId, body } = await resolveBody(rt.clients.doc, tables, slug, sourceId);
    const mirror = new MirrorStore(rt.clients, {
      bucket: rt.env.BUCKET,
      stateTable: rt.env.STATE_TABLE,
      mirrorTable: mirrorTablePlacement(rt.env),
    });
    const ags = (
      (await mirror.readLive(councilSourceId, 'body', body.id))?.object as { ags?: unknown } | undefined
    )?.ags;
    return {
      councilSourceId,
      bodyId: body.id,
      ...(typeof ags === 'string' && /^\d{8}$/.test(ags) ? { ags } : {}),
    };
  } catch (error) {
    if (error instanceof BodyNotFoundError) return undefined;
    throw error;
  }
}

export async function geoAdd(rt: LocalRuntime, o: GeoAddOptions): Promise<CommandResult> {
  const sourceId = geoSourceIdFor(o.body);
  const council = await councilBodyOf(rt, o.body, o.source);
  const params = paramsOf(o.param);
  const filter = filterOf(o.filter);
  const now = new Date().toISOString();
  const item: GeoSourceItem = {
    sourceId,
    itemKind: GEO_ITEM_KIND,
    body: o.body,
    kind: o.kind as GeoSourceItem['kind'],
    url: o.url,
    numberProperty: o.numberProperty ?? GEO_DEFAULT_NUMBER_PROPERTY,
    titleProperty: o.titleProperty ?? GEO_DEFAULT_TITLE_PROPERTY,
    active: o.activate,
    createdAt: now,
    updatedAt: now,
    updatedBy: 'ingestor geo add',
    ...(council ?? {}),
    ...(o.ags === undefined ? {} : { ags: o.ags }),
    ...(o.layer === undefined ? {} : { layer: o.layer }),
    ...(params === undefined ? {} : { params }),
    ...(filter === undefined ? {} : { filter }),
    ...(o.linkProperty === undefined ? {} : { linkProperty: o.linkProperty }),
    ...(o.attribution === undefined ? {} : { attribution: o.attribution }),
    ...(o.licenseUrl === undefined ? {} : { licenseUrl: o.licenseUrl }),
  };
  const parsed = parseGeoSourceItem(item);
  if (!parsed.ok) {
    throw new GeoSourceError(
      'GEO_SOURCE_INVALID',
      `geo source ${sourceId}: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  }
  const written = await putOtherItem(rt.clients.doc, rt.env.SOURCES_TABLE, item, { mustNotExist: true });
  if (!written) throw new GeoSourceError('GEO_SOURCE_EXISTS', `${sourceId} exists already; left as it is`);
  const lines = [
    `added ${sourceId} (${o.activate ? 'active' : 'inactive'})${o.activate ? '' : `; activate with: ingestor geo activate ${sourceId}`}`,
    council
      ? `  body ${o.body} of ${council.councilSourceId}${council.ags ? ` (AGS ${council.ags})` : ''}: papers are linked to its plans`
      : `  no mirrored body "${o.body}" yet: plans are stored, papers are linked once the body is known`,
  ];
  return { text: lines, json: { id: sourceId } };
}

export function refreshLines(summary: GeoRunSummary): string[] {
  const skipped = Object.entries(summary.skipped)
    .map(([reason, n]) => `${reason} ${n}`)
    .join(', ');
  return [
    `geo refresh: ${summary.sources} source(s), ${summary.fetched} page(s), ${summary.stored} plan(s) stored; ` +
      `${summary.created} created, ${summary.updated} updated, ${summary.deleted} deleted` +
      (skipped === '' ? '' : `; skipped: ${skipped}`),
    ...summary.errors.map((e) => `  ${e.sourceId}: ${e.error}`),
  ];
}

export async function geoRefresh(
  rt: LocalRuntime,
  options: { id?: string; allowLoopback: boolean },
): Promise<CommandResult> {
  const runtime = await composeCli(rt, { allowLoopback: options.allowLoopback }).geo();
  try {
    const { reports: _reports, ...summary } = await runtime.refresh(
      options.id === undefined ? {} : { sourceId: options.id },
    );
    return {
      text: refreshLines({ ...summary, reports: [] }),
      json: summary,
      ...(summary.errors.length > 0 ? { exitCode: 1 } : {}),
    };
  } finally {
    await runtime.close();
  }
}

export async function geoList(rt: LocalRuntime): Promise<CommandResult> {
  const load = await loadGeoSources(rt.clients.doc, rt.env.SOURCES_TABLE);
  const store = createGeoStore({
    doc: rt.clients.doc,
    s3: rt.clients.s3,
    bucket: rt.env.BUCKET,
    stateTable: rt.env.STATE_TABLE,
  });
  const rows = [];
  for (const s of load.sources) {
    const state = await store.runState(s.sourceId);
    rows.push({
      id: s.sourceId,
      body: s.body,
      kind: s.kind,
      active: s.active,
      plans: state.plans ?? 0,
      ...(state.lastSuccessAt ? { lastSuccessAt: state.lastSuccessAt } : {}),
      ...(state.lastCounts ? { lastCounts: state.lastCounts } : {}),
      ...(state.lastError ? { lastError: state.lastError } : {}),
    });
  }
  const text = rows.map(
    (r) =>
      `${r.id}  ${r.kind}  ${r.active ? 'active' : 'inactive'}  ${r.plans} plan(s)  last success: ${r.lastSuccessAt ?? 'never'}` +
      (r.lastError ? `  last error: ${redactUrlsIn(r.lastError.text)} (${r.lastError.at})` : ''),
  );
  // A problem may quote the service URL (and its `?apikey=…`): redacted like every other-fetch URL.
  const invalid = load.invalid.map((bad) => ({
    ...bad,
    problems: bad.problems.map((p) => ({ ...p, message: redactUrlsIn(p.message) })),
  }));
  for (const bad of invalid)
    text.push(`${bad.sourceId}  invalid: ${bad.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`);
  if (text.length === 0)
    text.push('no geo sources; add one with: ingestor geo add --body <slug> --kind … --url …');
  return { text, json: { sources: rows, invalid } };
}

/** OTH-3: switch a geo source on or off on its own (a municipality's request); nothing else changes. */
export async function geoSetActive(rt: LocalRuntime, id: string, active: boolean): Promise<CommandResult> {
  await setOtherItemActive(
    { doc: rt.clients.doc, table: rt.env.SOURCES_TABLE },
    { sourceId: id, itemKind: GEO_ITEM_KIND },
    active,
    { by: `ingestor geo ${active ? 'activate' : 'deactivate'}`, now: new Date() },
  );
  return { text: [`${id} ${active ? 'active' : 'inactive (never fetched)'}`], json: { id, active } };
}

/** `npm start`: the demo council's geoportal (demo/geoportal.ts) as the geo source of Musterstadt. */
export const DEMO_GEO_BODY = 'musterstadt';
export const DEMO_GEO_ATTRIBUTION = 'Demo-Geoportal (generierte Daten)';

/**
 * Seeds or updates the demo's geo source (its URL follows the demo's port); an operator's
 * `geo deactivate` is kept. Undefined until the demo's bodies are known (after its first sync).
 */
export async function seedDemoGeoSource(rt: LocalRuntime, councilUrl: string): Promise<string | undefined> {
  const council = await councilBodyOf(rt, DEMO_GEO_BODY, undefined);
  if (!council) return undefined;
  const sourceId = geoSourceIdFor(DEMO_GEO_BODY);
  const existing = await getSourceItem(rt.clients.doc, rt.env.SOURCES_TABLE, sourceId);
  const now = new Date().toISOString();
  const item: GeoSourceItem = {
    sourceId,
    itemKind: GEO_ITEM_KIND,
    body: DEMO_GEO_BODY,
    kind: 'ogc-api-features',
    url: `${councilUrl}/geo/ogc`,
    layer: 'bplan',
    params: { body: '1' },
    filter: { property: 'planart', values: [DEMO_PLAN_TYPE] },
    numberProperty: GEO_DEFAULT_NUMBER_PROPERTY,
    titleProperty: GEO_DEFAULT_TITLE_PROPERTY,
    linkProperty: 'dokument',
    attribution: DEMO_GEO_ATTRIBUTION,
    active: existing?.active !== false,
    note: 'Seeded by npm start: the demo council geoportal on loopback.',
    updatedAt: now,
    updatedBy: 'npm start',
    ...council,
  };
  await putOtherItem(rt.clients.doc, rt.env.SOURCES_TABLE, item);
  return sourceId;
}

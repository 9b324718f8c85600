import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GEO_ITEM_KIND, type GeoSourceConfig, parseGeoSourceItem } from '../config';
import { loadAllSources } from '../store';
import { GEO_ERROR_TEXTS } from './errors';
import { type GeoRefreshDeps, type GeoRefreshReport, refreshGeoSource } from './refresh';

/**
 * The daily refresh of every geo source (OTH-4): valid, active items only — an inactive source is
 * never fetched (OTH-3: a municipality's "switch it off"), an invalid one is reported, not guessed.
 * Sources run one after the other: they may share hosts, and the pace is per host anyway.
 */

export interface GeoSourcesLoad {
  sources: GeoSourceConfig[];
  invalid: { sourceId: string; problems: { field: string; message: string }[] }[];
}

export async function loadGeoSources(
  doc: DynamoDBDocumentClient,
  sourcesTable: string,
): Promise<GeoSourcesLoad> {
  const { others } = await loadAllSources(doc, sourcesTable);
  const load: GeoSourcesLoad = { sources: [], invalid: [] };
  for (const raw of others.get(GEO_ITEM_KIND) ?? []) {
    const parsed = parseGeoSourceItem(raw);
    if (parsed.ok) load.sources.push(parsed.source);
    else load.invalid.push({ sourceId: parsed.sourceId, problems: parsed.problems });
  }
  load.sources.sort((a, b) => a.sourceId.localeCompare(b.sourceId));
  return load;
}

export interface GeoRunSummary {
  /** Geo sources refreshed (active, valid, selected). */
  sources: number;
  fetched: number;
  stored: number;
  created: number;
  updated: number;
  deleted: number;
  skipped: Record<string, number>;
  errors: { sourceId: string; error: string }[];
  reports: GeoRefreshReport[];
}

export async function runGeoRefresh(
  deps: GeoRefreshDeps & { doc: DynamoDBDocumentClient; sourcesTable: string },
  options: { sourceId?: string } = {},
): Promise<GeoRunSummary> {
  const load = await loadGeoSources(deps.doc, deps.sourcesTable);
  const summary: GeoRunSummary = {
    sources: 0,
    fetched: 0,
    stored: 0,
    created: 0,
    updated: 0,
    deleted: 0,
    skipped: {},
    errors: [],
    reports: [],
  };
  const selected = (id: string) => options.sourceId === undefined || options.sourceId === id;
  for (const bad of load.invalid) {
    if (selected(bad.sourceId))
      summary.errors.push({ sourceId: bad.sourceId, error: GEO_ERROR_TEXTS.invalidConfig });
  }
  for (const source of load.sources) {
    if (!selected(source.sourceId)) continue;
    if (!source.active) {
      summary.skipped.inactive = (summary.skipped.inactive ?? 0) + 1;
      continue;
    }
    const report = await refreshGeoSource(deps, source);
    summary.sources += 1;
    summary.fetched += report.fetched;
    summary.stored += report.stored;
    summary.created += report.created;
    summary.updated += report.updated;
    summary.deleted += report.deleted;
    for (const [reason, n] of Object.entries(report.skipped))
      summary.skipped[reason] = (summary.skipped[reason] ?? 0) + (n ?? 0);
    if (report.error !== undefined) summary.errors.push({ sourceId: source.sourceId, error: report.error });
    summary.reports.push(report);
  }
  return summary;
}

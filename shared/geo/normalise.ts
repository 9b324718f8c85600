import { createHash } from 'node:crypto';
import type { GeoSourceConfig } from '../config';
import {
  type Area,
  centreOf,
  checkPolygonal,
  FAR_OUTSIDE_KM,
  GERMANY_AREA,
  type GeometryProblem,
  kmOutside,
  mergePolygonal,
  orientAxes,
  type Polygonal,
} from './geometry';
import { parsePlanNumber, planIdOf } from './plan-number';

/**
 * From the service's features to the stored plans (OTH-4), pure: filter, number, geometry checks
 * per feature (a bad feature is skipped and counted, never the whole answer), axis repair, area check,
 * document links (http(s) only), one plan per id (several parts merged).
 */

/** Without a configured area: farther than this from the middle of all plans counts as far outside. */
export const FAR_FROM_CENTRE_KM = 60;

export type SkipReason = GeometryProblem | 'not-a-feature' | 'filtered' | 'no-number' | 'outside-area';

export interface PlanProperties {
  planId: string;
  label: string;
  key: string;
  change?: string;
  title?: string;
  status?: string;
  link?: string;
}

export interface PlanFeature {
  type: 'Feature';
  id: string;
  geometry: Polygonal;
  properties: PlanProperties;
}

export interface NormalisedPlans {
  features: PlanFeature[];
  skipped: Partial<Record<SkipReason, number>>;
  /** Repairs made: latitude/longitude swapped by the service; document links dropped (not http(s)). */
  repaired: { axesSwapped: number; linksDropped: number };
}

function text(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value !== 'string') return undefined;
  const t = value.replace(/\s+/g, ' ').trim();
  return t === '' ? undefined : t.slice(0, 500);
}

/** Only absolute http(s) links are kept: no `javascript:`, `file:`, relative or credentialed URLs. */
export function documentLinkOf(value: unknown): string | undefined | 'dropped' {
  const raw = typeof value === 'string' ? value.trim() : undefined;
  if (raw === undefined || raw === '') return undefined;
  try {
    const url = new URL(raw);
    if (
      (url.protocol === 'http:' || url.protocol === 'https:') &&
      url.username === '' &&
      url.password === ''
    ) {
      return url.href;
    }
  } catch {
    // not a URL
  }
  return 'dropped';
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** A content hash of one plan (stable key order): created / updated / unchanged per run. */
export function planHash(feature: PlanFeature): string {
  const stable = JSON.stringify(feature, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
  return createHash('sha256').update(stable).digest('hex').slice(0, 32);
}

export function normalisePlans(source: GeoSourceConfig, rawFeatures: readonly unknown[]): NormalisedPlans {
  const skipped: NormalisedPlans['skipped'] = {};
  const skip = (reason: SkipReason) => {
    skipped[reason] = (skipped[reason] ?? 0) + 1;
  };
  const repaired = { axesSwapped: 0, linksDropped: 0 };
  const reference: Area = source.area ?? GERMANY_AREA;
  const candidates: PlanFeature[] = [];

  for (const raw of rawFeatures) {
    if (!raw || typeof raw !== 'object' || (raw as { type?: unknown }).type !== 'Feature') {
      skip('not-a-feature');
      continue;
    }
    const feature = raw as { geometry?: unknown; properties?: unknown };
    const props =
      feature.properties && typeof feature.properties === 'object'
        ? (feature.properties as Record<string, unknown>)
        : {};
    if (source.filter && !source.filter.values.includes(String(props[source.filter.property] ?? ''))) {
      skip('filtered');
      continue;
    }
    const number = parsePlanNumber(props[source.numberProperty]);
    if (!number) {
      skip('no-number');
      continue;
    }
    const checked = checkPolygonal(feature.geometry);
    if (typeof checked === 'string') {
      skip(checked);
      continue;
    }
    const oriented = orientAxes(checked, reference);
    if (oriented.swapped) repaired.axesSwapped += 1;
    const link = source.linkProperty ? documentLinkOf(props[source.linkProperty]) : undefined;
    if (link === 'dropped') repaired.linksDropped += 1;
    const planId = planIdOf(number, source);
    const properties: PlanProperties = { planId, ...number };
    const title = source.titleProperty ? text(props[source.titleProperty]) : undefined;
    const status = source.statusProperty ? text(props[source.statusProperty]) : undefined;
    if (title !== undefined) properties.title = title;
    if (status !== undefined) properties.status = status;
    if (link !== undefined && link !== 'dropped') properties.link = link;
    candidates.push({ type: 'Feature', id: planId, geometry: oriented.geometry, properties });
  }

  // Far outside the body's area: the configured area, else the middle of all plans of the answer.
  const centres = candidates.map((f) => centreOf(f.geometry));
  const area: Area | undefined =
    source.area ??
    (centres.length === 0
      ? undefined
      : (() => {
          const mx = median(centres.map((c) => c[0]));
          const my = median(centres.map((c) => c[1]));
          return [mx, my, mx, my] as Area;
        })());
  const limitKm = source.area ? FAR_OUTSIDE_KM : FAR_FROM_CENTRE_KM;
  const byId = new Map<string, PlanFeature>();
  candidates.forEach((feature, i) => {
    if (area && kmOutside(centres[i] as [number, number], area) > limitKm) {
      skip('outside-area');
      return;
    }
    const earlier = byId.get(feature.id);
    // A plan in several parts comes as several features: one plan, one multipolygon.
    if (earlier) earlier.geometry = mergePolygonal(earlier.geometry, feature.geometry);
    else byId.set(feature.id, feature);
  });
  const features = [...byId.values()].sort((a, b) => a.id.localeCompare(b.id));
  return { features, skipped, repaired };
}

import type { GeoSourceConfig } from '../config';

/**
 * The two service kinds (OTH-4), pure: the URL of the first page and of the next one.
 * - OGC API Features: `…/collections/<layer>/items?f=json&limit=<n>`, then `links[rel=next]`.
 * - WFS 2.0: `GetFeature` with `TYPENAMES`, `SRSNAME=EPSG:4326`, the configured `outputFormat`,
 *   paged with `COUNT` / `STARTINDEX` while a page comes back full.
 * Extra parameters are added to every page as configured; the answer must be a GeoJSON
 * FeatureCollection (else "Antwort ist kein gültiges GeoJSON").
 */

export interface GeoPage {
  features: unknown[];
  /** OGC API Features: the `next` link as given (may be relative). */
  nextHref?: string;
}

function withParams(url: URL, params: Record<string, string>): URL {
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url;
}

export function firstPageUrl(source: GeoSourceConfig): string {
  const base = new URL(source.url);
  if (source.kind === 'wfs') return wfsPageUrl(source, 0);
  if (!/\/items\/?$/.test(base.pathname) && source.layer !== undefined) {
    base.pathname = `${base.pathname.replace(/\/+$/, '')}/collections/${encodeURIComponent(source.layer)}/items`;
  }
  base.searchParams.set('f', 'json');
  base.searchParams.set('limit', String(source.pageSize));
  return withParams(base, source.params).href;
}

export function wfsPageUrl(source: GeoSourceConfig, startIndex: number): string {
  const url = new URL(source.url);
  const params: Record<string, string> = {
    SERVICE: 'WFS',
    VERSION: '2.0.0',
    REQUEST: 'GetFeature',
    TYPENAMES: source.layer ?? '',
    SRSNAME: 'EPSG:4326',
    outputFormat: source.outputFormat,
    COUNT: String(source.pageSize),
    STARTINDEX: String(startIndex),
  };
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return withParams(url, source.params).href;
}

/** The page as a FeatureCollection, or undefined when the body is not one. */
export function parseGeoPage(body: Buffer): GeoPage | undefined {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!json || typeof json !== 'object') return undefined;
  const collection = json as { type?: unknown; features?: unknown; links?: unknown };
  if (collection.type !== 'FeatureCollection' || !Array.isArray(collection.features)) return undefined;
  const page: GeoPage = { features: collection.features };
  if (Array.isArray(collection.links)) {
    const next = collection.links.find(
      (l): l is { href: string } =>
        !!l &&
        typeof l === 'object' &&
        (l as { rel?: unknown }).rel === 'next' &&
        typeof (l as { href?: unknown }).href === 'string',
    );
    if (next) page.nextHref = next.href;
  }
  return page;
}

/**
 * The URL of the page after `current`, or undefined at the end. OGC: the `next` link, resolved
 * against the page's URL, http(s) only. WFS: the next `STARTINDEX` while pages come back full.
 */
export function nextPageUrl(
  source: GeoSourceConfig,
  current: string,
  page: GeoPage,
  pageIndex: number,
): string | undefined {
  if (source.kind === 'wfs') {
    return page.features.length >= source.pageSize
      ? wfsPageUrl(source, (pageIndex + 1) * source.pageSize)
      : undefined;
  }
  if (page.nextHref === undefined) return undefined;
  try {
    const next = new URL(page.nextHref, current);
    return next.protocol === 'http:' || next.protocol === 'https:' ? next.href : undefined;
  } catch {
    return undefined;
  }
}

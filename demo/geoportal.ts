/**
 * The demo council's geoportal (OTH-4): the development plans of each demo body, served on the
 * council's own host (as municipal geoportals often are) through OGC API Features and WFS 2.0:
 * - `/geo/ogc/collections/bplan/items?f=json&limit=N&offset=K&body=B` with `links[rel=next]`;
 * - `/geo/wfs?SERVICE=WFS&REQUEST=GetFeature&TYPENAMES=bplan&COUNT=N&STARTINDEX=K&body=B`, answering
 *   latitude/longitude (WFS 2.0's axis order for EPSG:4326) — the ingestor repairs it.
 * Each body also has one feature a careful client rejects (a point) and one land-use plan (type 2000)
 * that the plan-type filter leaves out. Pure: the server passes the URL, gets status and body.
 */

export const GEOPORTAL_PREFIX = '/geo/';
export const DEMO_PLAN_TYPE = '1000';

interface DemoPlan {
  nummer: string;
  name: string;
  planart: string;
  /** Centre, lon/lat. */
  at: [number, number];
  dokument?: string;
}

/** Where each demo body lies (lon/lat); body 1 is Musterstadt. */
const BODY_CENTRES: [number, number][] = [
  [11.575, 48.137],
  [10.66, 54.28],
  [9.73, 52.37],
];

export function demoPlans(body: number): DemoPlan[] {
  const [x, y] = BODY_CENTRES[(body - 1) % BODY_CENTRES.length] as [number, number];
  return [
    { nummer: '47', name: 'Am Mühlenteich', planart: DEMO_PLAN_TYPE, at: [x + 0.01, y + 0.004] },
    {
      nummer: '12, 1. Änderung',
      name: 'Bürgerhaus',
      planart: DEMO_PLAN_TYPE,
      at: [x - 0.008, y + 0.002],
      dokument: 'https://www.example.org/bplan/12-1.pdf',
    },
    { nummer: '45 a', name: 'Gewerbegebiet Nord', planart: DEMO_PLAN_TYPE, at: [x + 0.02, y - 0.01] },
    { nummer: 'FNP 3', name: 'Flächennutzungsplan Teiländerung', planart: '2000', at: [x, y] },
  ];
}

function square([x, y]: [number, number], latLon: boolean): number[][][] {
  const d = 0.002;
  const ring = [
    [x - d, y - d],
    [x + d, y - d],
    [x + d, y + d],
    [x - d, y + d],
    [x - d, y - d],
  ];
  return [latLon ? ring.map(([a, b]) => [b as number, a as number]) : ring];
}

function features(body: number, latLon: boolean): unknown[] {
  const plans = demoPlans(body).map((p, i) => ({
    type: 'Feature',
    id: `bplan.${body}.${i + 1}`,
    geometry: { type: 'Polygon', coordinates: square(p.at, latLon) },
    properties: {
      nummer: p.nummer,
      name: p.name,
      planart: p.planart,
      ...(p.dokument ? { dokument: p.dokument } : {}),
    },
  }));
  const [x, y] = demoPlans(body)[0]?.at ?? [0, 0];
  plans.push({
    type: 'Feature',
    id: `bplan.${body}.point`,
    geometry: { type: 'Point', coordinates: latLon ? [y, x] : [x, y] } as never,
    properties: { nummer: '99', name: 'Nur ein Punkt', planart: DEMO_PLAN_TYPE },
  });
  return plans;
}

export interface GeoportalReply {
  status: number;
  body: string;
  contentType: string;
}

function page(all: unknown[], start: number, count: number): unknown[] {
  return all.slice(start, start + count);
}

/** The geoportal's answer to `url`, or undefined when the path is not the geoportal's. */
export function geoportalReply(url: URL, hasBody: (body: number) => boolean): GeoportalReply | undefined {
  if (!url.pathname.startsWith(GEOPORTAL_PREFIX)) return undefined;
  const body = Number(url.searchParams.get('body') ?? '1');
  if (!Number.isInteger(body) || !hasBody(body))
    return { status: 404, body: '{"error":"unknown body"}', contentType: 'application/json' };
  const number = (name: string, fallback: number) => {
    const v = Number(url.searchParams.get(name) ?? fallback);
    return Number.isInteger(v) && v >= 0 ? v : fallback;
  };
  if (url.pathname === '/geo/ogc/collections/bplan/items') {
    const limit = Math.max(1, number('limit', 10));
    const offset = number('offset', 0);
    const all = features(body, false);
    const links: { rel: string; href: string; type: string }[] = [];
    if (offset + limit < all.length) {
      const next = new URL(url.href);
      next.searchParams.set('offset', String(offset + limit));
      links.push({ rel: 'next', href: `${next.pathname}${next.search}`, type: 'application/geo+json' });
    }
    const doc = {
      type: 'FeatureCollection',
      features: page(all, offset, limit),
      numberMatched: all.length,
      links,
    };
    return { status: 200, body: JSON.stringify(doc), contentType: 'application/geo+json' };
  }
  if (url.pathname === '/geo/wfs') {
    const p = (name: string) => url.searchParams.get(name) ?? url.searchParams.get(name.toLowerCase());
    if (p('REQUEST') !== 'GetFeature' || p('TYPENAMES') !== 'bplan') {
      return { status: 400, body: '<ExceptionReport/>', contentType: 'application/xml' };
    }
    const count = Math.max(1, number('COUNT', 10));
    const start = number('STARTINDEX', 0);
    const all = features(body, true);
    const doc = { type: 'FeatureCollection', features: page(all, start, count), numberMatched: all.length };
    return { status: 200, body: JSON.stringify(doc), contentType: 'application/json' };
  }
  return { status: 404, body: '{"error":"not found"}', contentType: 'application/json' };
}

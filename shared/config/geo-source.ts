import * as z from 'zod';
import type { FieldProblem } from './errors';
import { editTrailFields, fieldProblemsOf, rawSourceIdOf } from './item-problems';
import { flag, httpUrl, numeric } from './source';

/**
 * A geo source (OTH-4): where the boundaries ("Umringe") of a body's development plans are fetched
 * from, one Sources item per body with `itemKind: "geo"`. Validated like council items: problems per
 * field, never a crash; an invalid or inactive item is never fetched.
 */

export const GEO_ITEM_KIND = 'geo';
export const GEO_SERVICE_KINDS = ['ogc-api-features', 'wfs'] as const;
export type GeoServiceKind = (typeof GEO_SERVICE_KINDS)[number];

/** Geo source ids carry a colon, which no council source id may (`^[a-z0-9][a-z0-9-]…`): no clash. */
export const GEO_ID_PREFIX = 'geo:';
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** Items per page asked of the service (`limit` / `COUNT`) and the page cap against endless `next` links. */
export const GEO_DEFAULT_PAGE_SIZE = 500;
export const GEO_MAX_PAGE_SIZE = 10_000;
export const GEO_DEFAULT_MAX_PAGES = 50;
export const GEO_MAX_MAX_PAGES = 500;
/** WFS 2.0: the GeoJSON output format most servers (GeoServer, deegree, MapServer) accept. */
export const WFS_DEFAULT_OUTPUT_FORMAT = 'application/json';

const propertyName = z.string().trim().min(1).max(200);

const geoItemSchema = z
  .object({
    sourceId: z
      .string({ error: 'is required' })
      .refine(
        (v) => v.startsWith(GEO_ID_PREFIX) && SLUG.test(v.slice(GEO_ID_PREFIX.length)),
        `must be "${GEO_ID_PREFIX}" and 1–63 characters of a–z, 0–9 and "-"`,
      ),
    itemKind: z.literal(GEO_ITEM_KIND),
    /** The body's slug (ONB-4) and, when known, its council source and OParl id (paper links). */
    body: z.string({ error: 'is required' }).regex(SLUG, 'must be a body slug'),
    councilSourceId: z.string().trim().min(1).optional(),
    bodyId: z.string().trim().min(1).optional(),
    /** Amtlicher Gemeindeschlüssel (8 digits): INSPIRE-style plan ids `DE_<ags>__<number>__<change>`. */
    ags: z
      .string()
      .regex(/^\d{8}$/, 'must be 8 digits (Amtlicher Gemeindeschlüssel)')
      .optional(),
    kind: z.enum(GEO_SERVICE_KINDS, { error: `must be one of ${GEO_SERVICE_KINDS.join(', ')}` }),
    /** OGC API Features: the landing page or the collection's `items` URL; WFS: the service URL. */
    url: httpUrl,
    /** OGC API Features: the collection id (when `url` is the landing page); WFS: the TYPENAMES. */
    layer: z.string().trim().min(1).max(200).optional(),
    /** WFS `outputFormat`. */
    outputFormat: z.string().trim().min(1).max(200).optional(),
    /** Extra query parameters, sent as given on every page. */
    params: z.record(z.string(), z.string()).optional(),
    /** Only features whose property is one of these values (e.g. plan type 1000). */
    filter: z
      .object({ property: propertyName, values: z.array(z.string()).min(1) })
      .strict()
      .optional(),
    numberProperty: propertyName,
    titleProperty: propertyName.optional(),
    linkProperty: propertyName.optional(),
    statusProperty: propertyName.optional(),
    /** The body's area [west, south, east, north] (WGS 84); features far outside it are skipped. */
    area: z.array(numeric).length(4).optional(),
    pageSize: numeric.optional(),
    maxPages: numeric.optional(),
    attribution: z.string().trim().max(500).optional(),
    licenseUrl: httpUrl.optional(),
    /** OTH-3: a geo source is switched off on its own (a municipality's request); new ones start off. */
    active: flag.default(false),
    ...editTrailFields,
  })
  .strict();

export type GeoSourceItem = z.input<typeof geoItemSchema>;

export interface GeoSourceConfig {
  sourceId: string;
  body: string;
  councilSourceId?: string;
  bodyId?: string;
  ags?: string;
  kind: GeoServiceKind;
  url: string;
  layer?: string;
  outputFormat: string;
  params: Record<string, string>;
  filter?: { property: string; values: string[] };
  numberProperty: string;
  titleProperty?: string;
  linkProperty?: string;
  statusProperty?: string;
  area?: [number, number, number, number];
  pageSize: number;
  maxPages: number;
  attribution?: string;
  licenseUrl?: string;
  active: boolean;
}

export type ParsedGeoSource =
  | { ok: true; source: GeoSourceConfig }
  | { ok: false; sourceId: string; problems: FieldProblem[] };

/** A whole-number knob's bounds: its field name, the default when absent, the largest value allowed. */
interface WholeKnob {
  field: string;
  fallback: number;
  max: number;
}

function wholeInRange(
  value: number | undefined,
  { field, fallback, max }: WholeKnob,
  problems: FieldProblem[],
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max) {
    problems.push({ field, message: `must be a whole number from 1 to ${max}` });
  }
  return value;
}

/** Parse one raw geo item. Never throws. */
export function parseGeoSourceItem(raw: unknown): ParsedGeoSource {
  const result = geoItemSchema.safeParse(raw);
  if (!result.success)
    return { ok: false, sourceId: rawSourceIdOf(raw), problems: fieldProblemsOf(result.error) };
  const item = result.data;
  const problems: FieldProblem[] = [];
  const pageSize = wholeInRange(
    item.pageSize,
    { field: 'pageSize', fallback: GEO_DEFAULT_PAGE_SIZE, max: GEO_MAX_PAGE_SIZE },
    problems,
  );
  const maxPages = wholeInRange(
    item.maxPages,
    { field: 'maxPages', fallback: GEO_DEFAULT_MAX_PAGES, max: GEO_MAX_MAX_PAGES },
    problems,
  );
  if (item.kind === 'wfs' && item.layer === undefined) {
    problems.push({ field: 'layer', message: 'is required for kind wfs (the TYPENAMES)' });
  }
  let area: GeoSourceConfig['area'];
  if (item.area) {
    const [w, s, e, n] = item.area as [number, number, number, number];
    if (!(w >= -180 && e <= 180 && s >= -90 && n <= 90 && w < e && s < n)) {
      problems.push({ field: 'area', message: 'must be [west, south, east, north] in degrees (WGS 84)' });
    } else {
      area = [w, s, e, n];
    }
  }
  if (problems.length > 0) return { ok: false, sourceId: item.sourceId, problems };
  const source: GeoSourceConfig = {
    sourceId: item.sourceId,
    body: item.body,
    kind: item.kind,
    url: item.url,
    outputFormat: item.outputFormat ?? WFS_DEFAULT_OUTPUT_FORMAT,
    params: item.params ?? {},
    numberProperty: item.numberProperty,
    pageSize,
    maxPages,
    active: item.active,
  };
  const optional = [
    'councilSourceId',
    'bodyId',
    'ags',
    'layer',
    'titleProperty',
    'linkProperty',
    'statusProperty',
    'attribution',
    'licenseUrl',
  ] as const;
  for (const key of optional) if (item[key] !== undefined) source[key] = item[key];
  if (item.filter) source.filter = item.filter;
  if (area) source.area = area;
  return { ok: true, source };
}

/** The id of a body's geo source. */
export function geoSourceIdFor(bodySlug: string): string {
  return `${GEO_ID_PREFIX}${bodySlug}`;
}

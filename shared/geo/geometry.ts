/**
 * Plan boundaries' geometry (OTH-4), pure: only polygons in WGS 84 longitude/latitude are kept.
 * Rejected per feature: points and lines (a plan has an area), rings that are not closed or have
 * fewer than 4 positions, and projected coordinates (metres, e.g. UTM — a service that ignored
 * SRSNAME). A service that answers latitude/longitude (WFS 2.0's EPSG:4326 axis order) is detected
 * against the reference area and repaired.
 */

export type Position = [number, number];
export type PolygonCoords = Position[][];
export type Polygonal =
  | { type: 'Polygon'; coordinates: PolygonCoords }
  | { type: 'MultiPolygon'; coordinates: PolygonCoords[] };
/** [west, south, east, north], degrees. */
export type Area = [number, number, number, number];

export type GeometryProblem =
  | 'not-polygon'
  | 'ring-not-closed'
  | 'ring-too-short'
  | 'projected-coordinates'
  | 'invalid-coordinates';

/** Germany with its islands: where plan boundaries of a German body lie, when no area is configured. */
export const GERMANY_AREA: Area = [5.5, 47.2, 15.5, 55.1];
/** A feature whose centre lies farther than this outside the body's area is skipped. */
export const FAR_OUTSIDE_KM = 25;
/** A ring needs 4 positions: a triangle plus the closing one. */
const MIN_RING_POSITIONS = 4;

function positionOf(value: unknown): Position | 'invalid' | 'projected' {
  if (!Array.isArray(value) || value.length < 2) return 'invalid';
  const [x, y] = value as unknown[];
  if (typeof x !== 'number' || typeof y !== 'number' || !Number.isFinite(x) || !Number.isFinite(y))
    return 'invalid';
  if (Math.abs(x) > 180 || Math.abs(y) > 180) return 'projected';
  return [x, y]; // a third dimension (height) is dropped
}

function ringsOf(value: unknown): PolygonCoords | GeometryProblem {
  if (!Array.isArray(value) || value.length === 0) return 'invalid-coordinates';
  const rings: PolygonCoords = [];
  for (const rawRing of value) {
    if (!Array.isArray(rawRing)) return 'invalid-coordinates';
    const ring: Position[] = [];
    for (const raw of rawRing) {
      const p = positionOf(raw);
      if (p === 'invalid') return 'invalid-coordinates';
      if (p === 'projected') return 'projected-coordinates';
      ring.push(p);
    }
    if (ring.length < MIN_RING_POSITIONS) return 'ring-too-short';
    const first = ring[0] as Position;
    const last = ring[ring.length - 1] as Position;
    if (first[0] !== last[0] || first[1] !== last[1]) return 'ring-not-closed';
    rings.push(ring);
  }
  return rings;
}

/** The geometry as a polygon or multipolygon in degrees, or why it is not one. */
export function checkPolygonal(geometry: unknown): Polygonal | GeometryProblem {
  if (!geometry || typeof geometry !== 'object') return 'not-polygon';
  const { type, coordinates } = geometry as { type?: unknown; coordinates?: unknown };
  if (type === 'Polygon') {
    const rings = ringsOf(coordinates);
    return typeof rings === 'string' ? rings : { type, coordinates: rings };
  }
  if (type === 'MultiPolygon') {
    if (!Array.isArray(coordinates) || coordinates.length === 0) return 'invalid-coordinates';
    const polygons: PolygonCoords[] = [];
    for (const polygon of coordinates) {
      const rings = ringsOf(polygon);
      if (typeof rings === 'string') return rings;
      polygons.push(rings);
    }
    return { type, coordinates: polygons };
  }
  return 'not-polygon';
}

function polygonsOf(g: Polygonal): PolygonCoords[] {
  return g.type === 'Polygon' ? [g.coordinates] : g.coordinates;
}

/** Centre of the outer rings' positions (good enough to place a plan). */
export function centreOf(g: Polygonal): Position {
  let x = 0;
  let y = 0;
  let n = 0;
  for (const polygon of polygonsOf(g)) {
    for (const [px, py] of polygon[0] ?? []) {
      x += px;
      y += py;
      n += 1;
    }
  }
  return [x / n, y / n];
}

export function swapAxes(g: Polygonal): Polygonal {
  const swapRings = (rings: PolygonCoords): PolygonCoords =>
    rings.map((r) => r.map(([a, b]) => [b, a] as Position));
  return g.type === 'Polygon'
    ? { type: 'Polygon', coordinates: swapRings(g.coordinates) }
    : { type: 'MultiPolygon', coordinates: g.coordinates.map(swapRings) };
}

/** Distance in km from a point to an area (0 inside); equirectangular, fine at this scale. */
export function kmOutside([x, y]: Position, [w, s, e, n]: Area): number {
  const dx = x < w ? w - x : x > e ? x - e : 0;
  const dy = y < s ? s - y : y > n ? y - n : 0;
  const kmPerDegreeLat = 111.32;
  const kmPerDegreeLon = kmPerDegreeLat * Math.cos((y * Math.PI) / 180);
  return Math.hypot(dx * kmPerDegreeLon, dy * kmPerDegreeLat);
}

/**
 * Longitude/latitude as stated, or swapped when only the swapped reading lies in the reference area
 * (in Germany the two never overlap: longitudes 5–16, latitudes 47–55).
 */
export function orientAxes(g: Polygonal, reference: Area): { geometry: Polygonal; swapped: boolean } {
  const [x, y] = centreOf(g);
  if (kmOutside([x, y], reference) <= FAR_OUTSIDE_KM) return { geometry: g, swapped: false };
  if (kmOutside([y, x], reference) <= FAR_OUTSIDE_KM) return { geometry: swapAxes(g), swapped: true };
  return { geometry: g, swapped: false };
}

/** Two geometries of one plan (a plan in several parts) as one multipolygon. */
export function mergePolygonal(a: Polygonal, b: Polygonal): Polygonal {
  return { type: 'MultiPolygon', coordinates: [...polygonsOf(a), ...polygonsOf(b)] };
}

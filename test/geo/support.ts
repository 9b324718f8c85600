import { GetObjectCommand } from '@aws-sdk/client-s3';
import { type GeoSourceConfig, type GeoSourceItem, parseGeoSourceItem } from '../../shared/config';
import { createGeoStore, type GeoRefreshDeps } from '../../shared/geo';
import { MirrorStore } from '../../shared/mirror';
import { type CouncilHostIntervals, createOtherFetch } from '../../shared/other-fetch';
import type { AwsTestbed } from '../support/aws';
import type { Kit } from '../support/fetch-kit';

/** Geo refresh wiring for tests: the real stores on the local AWS peers, the fetcher of a test kit. */

export const NO_COUNCIL_INTERVALS: CouncilHostIntervals = {
  refresh: async () => {},
  forHost: () => undefined,
};

export function geoDeps(bed: AwsTestbed, kit: Kit): GeoRefreshDeps & { mirror: MirrorStore } {
  const config = { bucket: bed.env.BUCKET, stateTable: bed.env.STATE_TABLE };
  return {
    otherFetch: createOtherFetch({ fetcher: kit.fetcher, hostIntervals: NO_COUNCIL_INTERVALS }),
    store: createGeoStore({ doc: bed.clients.doc, s3: bed.clients.s3, ...config }),
    mirror: new MirrorStore(bed.clients, config),
    now: () => new Date(kit.clock.now()),
  };
}

let counter = 0;

/** A valid, active geo source (unique id per call) with `overrides`. */
export function geoSource(overrides: Partial<GeoSourceItem> & Pick<GeoSourceItem, 'url'>): GeoSourceConfig {
  counter += 1;
  const parsed = parseGeoSourceItem({
    sourceId: `geo:t${counter}`,
    itemKind: 'geo',
    body: `t${counter}`,
    kind: 'ogc-api-features',
    numberProperty: 'nummer',
    titleProperty: 'name',
    linkProperty: 'dokument',
    active: true,
    ...overrides,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.source;
}

export async function readJsonObject(bed: AwsTestbed, key: string): Promise<Record<string, unknown>> {
  const out = await bed.clients.s3.send(new GetObjectCommand({ Bucket: bed.env.BUCKET, Key: key }));
  return JSON.parse(await (out.Body as { transformToString(): Promise<string> }).transformToString());
}

/** A square polygon around lon/lat (closed ring). */
export function square(x: number, y: number, d = 0.002): number[][][] {
  return [
    [
      [x - d, y - d],
      [x + d, y - d],
      [x + d, y + d],
      [x - d, y + d],
      [x - d, y - d],
    ],
  ];
}

export function planFeature(nummer: string, x = 11.575, y = 48.137, extra: Record<string, unknown> = {}) {
  return {
    type: 'Feature',
    geometry: { type: 'Polygon', coordinates: square(x, y) },
    properties: { nummer, name: `Plan ${nummer}`, ...extra },
  };
}

export const collection = (features: unknown[], links: unknown[] = []) =>
  JSON.stringify({ type: 'FeatureCollection', features, links });

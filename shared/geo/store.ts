import type { S3Client } from '@aws-sdk/client-s3';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createGeoItems, GEO_OBJECT_PREFIX, geoObjectKey, geoPartition } from '../store';
import type { PlanFeature, PlanProperties } from './normalise';

/**
 * Where a geo source's stock lives (OTH-4): the normalised GeoJSON FeatureCollection in S3
 * (`geo/<body>/plans.geojson`), and in the State table, partition `GEO#<sourceId>`: one `PLAN#<planId>`
 * item per plan, one `PAPER#<paper id>` item per linked paper, and the run state `STATE`.
 */

// The keys live in shared/store keys.ts (one home for every key, issue 29 item 1).
export { GEO_OBJECT_PREFIX, geoObjectKey, geoPartition };

export interface StoredPlan extends PlanProperties {
  hash: string;
  updatedAt: string;
}

/** Which papers name which plans. */
export interface PaperLink {
  paperId: string;
  name: string;
  /** The mirror index hash the title was read at: an unchanged paper is not read again. */
  indexHash: string;
  planIds: string[];
}

/** The run state of a geo source: `geo list` and the status show it. */
export interface GeoRunState {
  lastRunAt?: string;
  lastSuccessAt?: string;
  lastError?: { at: string; text: string };
  plans?: number;
  lastCounts?: { created: number; updated: number; deleted: number; skipped: Record<string, number> };
  failuresInRow?: number;
}

export interface GeoStoreDeps {
  doc: DynamoDBDocumentClient;
  s3: S3Client;
  bucket: string;
  stateTable: string;
}

/** The stock's reads and writes: shared/store `createGeoItems`, typed with this folder's shapes. */
export function createGeoStore(deps: GeoStoreDeps) {
  const items = createGeoItems<StoredPlan, PaperLink, GeoRunState>({
    state: { doc: deps.doc, table: deps.stateTable },
    bucket: { s3: deps.s3, bucket: deps.bucket },
  });
  return {
    ...items,
    /** The normalised FeatureCollection, with the source's attribution and licence (B-4). */
    async putCollection(
      sourceId: string,
      features: PlanFeature[],
      meta: { attribution?: string; licenseUrl?: string; sourceUrl: string; fetchedAt: string },
    ): Promise<void> {
      await items.putCollection(sourceId, { type: 'FeatureCollection', ...meta, features });
    },
  };
}

export type GeoStore = ReturnType<typeof createGeoStore>;

import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  DeleteCommand,
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { GEO_ID_PREFIX } from '../config';
import type { PlanFeature, PlanProperties } from './normalise';

/**
 * Where a geo source's stock lives (OTH-4): the normalised GeoJSON FeatureCollection in S3
 * (`geo/<body>/plans.geojson`), and in the State table, partition `GEO#<sourceId>`: one `PLAN#<planId>`
 * item per plan, one `PAPER#<paper id>` item per linked paper, and the run state `STATE`.
 */

export const GEO_OBJECT_PREFIX = 'geo';
export const geoPartition = (sourceId: string) => `GEO#${sourceId}`;
const STATE_SK = 'STATE';
const PLAN_PREFIX = 'PLAN#';
const PAPER_PREFIX = 'PAPER#';

export function geoObjectKey(sourceId: string): string {
  return `${GEO_OBJECT_PREFIX}/${sourceId.slice(GEO_ID_PREFIX.length)}/plans.geojson`;
}

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

async function queryPrefix(
  deps: GeoStoreDeps,
  sourceId: string,
  prefix: string,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await deps.doc.send(
      new QueryCommand({
        TableName: deps.stateTable,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': geoPartition(sourceId), ':prefix': prefix },
        ExclusiveStartKey: startKey,
        ConsistentRead: true,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

export function createGeoStore(deps: GeoStoreDeps) {
  const strip = ({ pk: _pk, sk: _sk, ...rest }: Record<string, unknown>) => rest;
  return {
    async plans(sourceId: string): Promise<StoredPlan[]> {
      return (await queryPrefix(deps, sourceId, PLAN_PREFIX)).map((i) => strip(i) as unknown as StoredPlan);
    },
    async putPlan(sourceId: string, plan: StoredPlan): Promise<void> {
      await deps.doc.send(
        new PutCommand({
          TableName: deps.stateTable,
          Item: { pk: geoPartition(sourceId), sk: `${PLAN_PREFIX}${plan.planId}`, ...plan },
        }),
      );
    },
    async deletePlan(sourceId: string, planId: string): Promise<void> {
      await deps.doc.send(
        new DeleteCommand({
          TableName: deps.stateTable,
          Key: { pk: geoPartition(sourceId), sk: `${PLAN_PREFIX}${planId}` },
        }),
      );
    },
    async paperLinks(sourceId: string): Promise<PaperLink[]> {
      return (await queryPrefix(deps, sourceId, PAPER_PREFIX)).map((i) => strip(i) as unknown as PaperLink);
    },
    async putPaperLink(sourceId: string, link: PaperLink): Promise<void> {
      await deps.doc.send(
        new PutCommand({
          TableName: deps.stateTable,
          Item: { pk: geoPartition(sourceId), sk: `${PAPER_PREFIX}${link.paperId}`, ...link },
        }),
      );
    },
    async runState(sourceId: string): Promise<GeoRunState> {
      const out = await deps.doc.send(
        new GetCommand({
          TableName: deps.stateTable,
          Key: { pk: geoPartition(sourceId), sk: STATE_SK },
          ConsistentRead: true,
        }),
      );
      return out.Item ? (strip(out.Item) as GeoRunState) : {};
    },
    async putRunState(sourceId: string, state: GeoRunState): Promise<void> {
      await deps.doc.send(
        new PutCommand({
          TableName: deps.stateTable,
          Item: { pk: geoPartition(sourceId), sk: STATE_SK, ...state },
        }),
      );
    },
    /** The normalised FeatureCollection, with the source's attribution and licence (B-4). */
    async putCollection(
      sourceId: string,
      features: PlanFeature[],
      meta: { attribution?: string; licenseUrl?: string; sourceUrl: string; fetchedAt: string },
    ): Promise<void> {
      const collection = { type: 'FeatureCollection', ...meta, features };
      await deps.s3.send(
        new PutObjectCommand({
          Bucket: deps.bucket,
          Key: geoObjectKey(sourceId),
          Body: JSON.stringify(collection),
          ContentType: 'application/geo+json',
        }),
      );
    },
  };
}

export type GeoStore = ReturnType<typeof createGeoStore>;

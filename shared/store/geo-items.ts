import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { BucketContext, TableContext } from './context';
import { geoObjectKey, geoPartition } from './keys';
import { BucketObjects } from './objects';
import { queryAll } from './query-pages';

const STATE_SK = 'STATE';
const PLAN_PREFIX = 'PLAN#';
const PAPER_PREFIX = 'PAPER#';

/** The State table's geo items and the bucket's FeatureCollection of one deployment (OTH-4). */
export interface GeoItemsContext {
  state: TableContext;
  bucket: BucketContext;
}

/**
 * A geo source's stock (keys.ts `geoPartition`, `geoObjectKey`): plans, paper links, run state, the
 * collection. The item shapes are shared/geo's (`StoredPlan`, `PaperLink`, `GeoRunState`).
 */
export function createGeoItems<
  Plan extends { planId: string },
  Link extends { paperId: string },
  RunState extends object,
>(ctx: GeoItemsContext) {
  const { doc, table } = ctx.state;
  const objects = new BucketObjects(ctx.bucket);
  const strip = ({ pk: _pk, sk: _sk, ...rest }: Record<string, unknown>) => rest;
  async function queryPrefix(sourceId: string, prefix: string): Promise<Record<string, unknown>[]> {
    return queryAll(doc, {
      TableName: table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': geoPartition(sourceId), ':prefix': prefix },
      ConsistentRead: true,
    });
  }
  return {
    async plans(sourceId: string): Promise<Plan[]> {
      return (await queryPrefix(sourceId, PLAN_PREFIX)).map((i) => strip(i) as unknown as Plan);
    },
    async putPlan(sourceId: string, plan: Plan): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: geoPartition(sourceId), sk: `${PLAN_PREFIX}${plan.planId}`, ...plan },
        }),
      );
    },
    async deletePlan(sourceId: string, planId: string): Promise<void> {
      await doc.send(
        new DeleteCommand({
          TableName: table,
          Key: { pk: geoPartition(sourceId), sk: `${PLAN_PREFIX}${planId}` },
        }),
      );
    },
    async paperLinks(sourceId: string): Promise<Link[]> {
      return (await queryPrefix(sourceId, PAPER_PREFIX)).map((i) => strip(i) as unknown as Link);
    },
    async putPaperLink(sourceId: string, link: Link): Promise<void> {
      await doc.send(
        new PutCommand({
          TableName: table,
          Item: { pk: geoPartition(sourceId), sk: `${PAPER_PREFIX}${link.paperId}`, ...link },
        }),
      );
    },
    async runState(sourceId: string): Promise<RunState> {
      const out = await doc.send(
        new GetCommand({
          TableName: table,
          Key: { pk: geoPartition(sourceId), sk: STATE_SK },
          ConsistentRead: true,
        }),
      );
      return (out.Item ? strip(out.Item) : {}) as RunState;
    },
    async putRunState(sourceId: string, state: RunState): Promise<void> {
      await doc.send(
        new PutCommand({ TableName: table, Item: { pk: geoPartition(sourceId), sk: STATE_SK, ...state } }),
      );
    },
    /** The FeatureCollection as given (GeoJSON). */
    async putCollection(sourceId: string, collection: unknown): Promise<void> {
      await objects.put(geoObjectKey(sourceId), JSON.stringify(collection), {
        contentType: 'application/geo+json',
      });
    },
  };
}

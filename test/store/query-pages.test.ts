import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { queryAll, queryItems, queryOutputs, queryPages } from '../../shared/store/query-pages';
import { useAwsTestbed } from '../support/aws';
import { countCalls } from '../support/write-counter';

/**
 * shared/store's one paging loop (`queryPages`, `queryItems`, `queryAll`) against the real State table
 * (dynalite): every page read and handed on in key order, `Limit` per page fixed or asked before each
 * page, and no page read past the one where the caller stopped.
 */

const bed = useAwsTestbed();
let partitions = 0;

/** A partition of `n` items in State, sort keys `ITEM#000` … in order. */
async function seedPartition(n: number): Promise<{ pk: string; sks: string[] }> {
  partitions += 1;
  const pk = `PAGING#${partitions}`;
  const sks = Array.from({ length: n }, (_, i) => `ITEM#${String(i).padStart(3, '0')}`);
  for (let i = 0; i < sks.length; i += 25) {
    await bed.clients.doc.send(
      new BatchWriteCommand({
        RequestItems: {
          [bed.env.STATE_TABLE]: sks.slice(i, i + 25).map((sk) => ({ PutRequest: { Item: { pk, sk } } })),
        },
      }),
    );
  }
  return { pk, sks };
}

const inputOf = (pk: string) => ({
  TableName: bed.env.STATE_TABLE,
  KeyConditionExpression: 'pk = :pk',
  ExpressionAttributeValues: { ':pk': pk },
  ConsistentRead: true,
});

describe('queryPages: one way to page a Query (shared/store)', () => {
  it('reads every page: 23 items at Limit 10 come as pages of 10, 10, 3, in key order, one Query each', async () => {
    const { pk, sks } = await seedPartition(23);
    const calls = countCalls(bed.clients.dynamo);
    const pages: string[][] = [];
    for await (const items of queryPages(bed.clients.doc, inputOf(pk), { limit: 10 })) {
      pages.push(items.map((i) => String(i.sk)));
    }
    expect(pages.map((p) => p.length)).toEqual([10, 10, 3]);
    expect(pages.flat()).toEqual(sks);
    // DynamoDB may answer a last, empty page when the previous one ended exactly at the limit: not here.
    expect(calls.calls().filter((c) => c.command === 'Query')).toHaveLength(3);
  });

  it('queryAll and queryItems return the whole partition without a limit', async () => {
    const { pk, sks } = await seedPartition(7);
    expect((await queryAll(bed.clients.doc, inputOf(pk))).map((i) => i.sk)).toEqual(sks);
    const seen: unknown[] = [];
    for await (const item of queryItems(bed.clients.doc, inputOf(pk))) seen.push(item.sk);
    expect(seen).toEqual(sks);
  });

  it('a caller that stops reads no further page; a limit given as a function is asked before each page', async () => {
    const { pk, sks } = await seedPartition(30);
    const calls = countCalls(bed.clients.dynamo);
    const asked: number[] = [];
    const wanted = 12;
    const got: string[] = [];
    const pages = queryPages(bed.clients.doc, inputOf(pk), {
      limit: () => {
        asked.push(wanted - got.length);
        return wanted - got.length;
      },
    });
    for await (const items of pages) {
      for (const item of items) got.push(String(item.sk));
      if (got.length >= wanted) break;
    }
    expect(got).toEqual(sks.slice(0, wanted));
    expect(asked).toEqual([12]);
    expect(calls.calls().filter((c) => c.command === 'Query')).toHaveLength(1);

    // Half per page: asked 6, then what is left (6), then the break.
    const half: string[] = [];
    const asks: number[] = [];
    for await (const items of queryPages(bed.clients.doc, inputOf(pk), {
      limit: () => {
        const n = Math.max(1, Math.ceil((wanted - half.length) / 2));
        asks.push(n);
        return n;
      },
    })) {
      half.push(...items.map((i) => String(i.sk)));
      if (half.length >= wanted) break;
    }
    expect(half).toEqual(sks.slice(0, wanted));
    expect(asks).toEqual([6, 3, 2, 1]);
  });

  it('queryOutputs hands on each page whole — a COUNT Query has counts, no items — and awaits beforePage before every page’s call, none after the last', async () => {
    const { pk } = await seedPartition(25);
    const calls = countCalls(bed.clients.dynamo);
    const order: string[] = [];
    let scanned = 0;
    let counted = 0;
    const pages = queryOutputs(
      bed.clients.doc,
      {
        ...inputOf(pk),
        // No seeded item has the attribute: every one evaluated, none passes.
        FilterExpression: 'attribute_exists(flagged)',
        Select: 'COUNT',
      },
      { limit: 10, beforePage: async () => void order.push(`pace ${calls.calls().length}`) },
    );
    for await (const page of pages) {
      order.push(`page ${calls.calls().length}`);
      expect(page.Items).toBeUndefined();
      scanned += page.ScannedCount ?? 0;
      counted += page.Count ?? 0;
    }
    // Every item evaluated (ScannedCount), only those passing the filter counted (Count).
    expect(scanned).toBe(25);
    expect(counted).toBe(0);
    expect(order).toEqual(['pace 0', 'page 1', 'pace 1', 'page 2', 'pace 2', 'page 3']);
  });
});

import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';

/**
 * The one way shared/store pages a Query: DynamoDB answers at most 1 MB (or `Limit` evaluated items)
 * a call and says where to go on (`LastEvaluatedKey`); every repository that reads a partition or an
 * index whole used to spell that loop out. The input is the caller's Query (table, index, key
 * condition, filter, projection, `ConsistentRead` …) without the two paging fields.
 */
export type QueryInput = Omit<QueryCommandInput, 'ExclusiveStartKey' | 'Limit'>;

export interface QueryPaging {
  /**
   * DynamoDB's `Limit` (items evaluated per page): a number, or asked before each page — a caller that
   * wants n items passing its own test asks only for what it still lacks. Absent: 1 MB pages.
   */
  limit?: number | (() => number);
  /** Awaited right before each page's call: a caller that paces its reads (a maintenance pass). */
  beforePage?: () => Promise<void>;
}

/**
 * Every page's whole answer (its counts too: `Select: 'COUNT'` has no items), one Query call per page,
 * the next page read only when the caller asks for it: a caller that stops early reads no further page.
 */
export async function* queryOutputs(
  doc: DynamoDBDocumentClient,
  input: QueryInput,
  paging: QueryPaging = {},
): AsyncGenerator<QueryCommandOutput> {
  let startKey: Record<string, unknown> | undefined;
  do {
    await paging.beforePage?.();
    const limit = typeof paging.limit === 'function' ? paging.limit() : paging.limit;
    const page = await doc.send(
      new QueryCommand({
        ...input,
        ...(limit !== undefined ? { Limit: limit } : {}),
        ...(startKey !== undefined ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    yield page;
    startKey = page.LastEvaluatedKey;
  } while (startKey !== undefined);
}

/**
 * Every page's items, one Query call per page, the next page read only when the caller asks for it:
 * a caller that stops early (`break`, enough items) reads no further page.
 */
export async function* queryPages(
  doc: DynamoDBDocumentClient,
  input: QueryInput,
  paging: QueryPaging = {},
): AsyncGenerator<Record<string, unknown>[]> {
  for await (const page of queryOutputs(doc, input, paging)) yield page.Items ?? [];
}

/** Every item of the Query, page by page as the caller reads on. */
export async function* queryItems(
  doc: DynamoDBDocumentClient,
  input: QueryInput,
  paging: QueryPaging = {},
): AsyncGenerator<Record<string, unknown>> {
  for await (const items of queryPages(doc, input, paging)) yield* items;
}

/** Every item of the Query, all pages read. */
export async function queryAll(
  doc: DynamoDBDocumentClient,
  input: QueryInput,
): Promise<Record<string, unknown>[]> {
  const all: Record<string, unknown>[] = [];
  for await (const items of queryPages(doc, input)) all.push(...items);
  return all;
}

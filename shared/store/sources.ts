import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand, PutCommand, ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import { otherItemKindOf, type ParsedSource, parseSourceItem, type SourceItem } from '../config';
import { IngestorError } from '../errors';

/**
 * The Sources table: config that on-call edits by hand. Reads always go through `parseSourceItem`,
 * so a broken item is reported per field and skipped, never fatal to a run.
 */
export interface SourcesLoad {
  parsed: ParsedSource[];
  /** Raw items as stored, for `sources show`. */
  raw: Map<string, Record<string, unknown>>;
  /** Items of other fetches (OTH: geo, broadcasts), raw, by their `itemKind`; never council sources. */
  others: Map<string, Record<string, unknown>[]>;
}

export async function loadAllSources(doc: DynamoDBDocumentClient, table: string): Promise<SourcesLoad> {
  const parsed: ParsedSource[] = [];
  const raw = new Map<string, Record<string, unknown>>();
  const others = new Map<string, Record<string, unknown>[]>();
  let startKey: ScanCommandOutput['LastEvaluatedKey'];
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
    for (const item of page.Items ?? []) {
      const otherKind = otherItemKindOf(item);
      if (otherKind !== undefined) {
        others.set(otherKind, [...(others.get(otherKind) ?? []), item]);
        continue;
      }
      const p = parseSourceItem(item);
      parsed.push(p);
      raw.set(p.ok ? p.source.sourceId : p.sourceId, item);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  parsed.sort((a, b) => idOf(a).localeCompare(idOf(b)));
  return { parsed, raw, others };
}

export function idOf(p: ParsedSource): string {
  return p.ok ? p.source.sourceId : p.sourceId;
}

export async function getSourceItem(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
): Promise<Record<string, unknown> | undefined> {
  const res = await doc.send(new GetCommand({ TableName: table, Key: { sourceId } }));
  return res.Item;
}

export async function loadSource(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
): Promise<ParsedSource | undefined> {
  const item = await getSourceItem(doc, table, sourceId);
  return item === undefined ? undefined : parseSourceItem(item);
}

/**
 * Write a whole item after validating it. `mustNotExist` makes creation idempotent and race-free
 * (ONB-3: existing sources keep their state when a tool "adds" them again).
 */
export async function putSourceItem(
  doc: DynamoDBDocumentClient,
  table: string,
  item: SourceItem & Record<string, unknown>,
  opts: { mustNotExist?: boolean } = {},
): Promise<{ written: boolean; parsed: ParsedSource }> {
  const parsed = parseSourceItem(item);
  if (!parsed.ok) {
    throw new IngestorError(
      'CONFIG_INVALID',
      `source ${parsed.sourceId}: ${parsed.problems.map((p) => `${p.field} ${p.message}`).join('; ')}`,
    );
  }
  try {
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ...(opts.mustNotExist ? { ConditionExpression: 'attribute_not_exists(sourceId)' } : {}),
      }),
    );
    return { written: true, parsed };
  } catch (err) {
    if (opts.mustNotExist && (err as { name?: string }).name === 'ConditionalCheckFailedException') {
      return { written: false, parsed };
    }
    throw err;
  }
}

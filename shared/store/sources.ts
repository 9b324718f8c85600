import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import {
  GetCommand,
  PutCommand,
  ScanCommand,
  type ScanCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import {
  BROADCAST_ITEM_KIND,
  type EditTrail,
  GEO_ITEM_KIND,
  otherItemKindOf,
  type ParsedSource,
  parseSourceItem,
  type SourceItem,
} from '../config';
import { IngestorError } from '../errors';
import { type TableContext, unlessConditionFails } from './context';
import { queryItems } from './query-pages';
import { SOURCES_BY_HOST_INDEX } from './tables';

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
  // Issue 27: the host index's key, from the URL just validated (a running host lane finds the item by it).
  const stamped = { ...item, hostKey: parsed.source.host };
  return { written: await putItem(doc, table, stamped, opts), parsed };
}

/** One source of a host as the `byHost` index holds it. */
export interface HostSourceEntry {
  sourceId: string;
  /** As stored: a console user may have typed `"true"` (the config's `flag`). */
  active: boolean;
}

/**
 * Issue 27: the sources stored under a host key (RATE-2), through the `byHost` index — keys and `active`
 * only, ~70 bytes an item: one read unit for a host of ~100 sources (eventually consistent, as every
 * index read). A hint, not config: the index may lag a write by a moment and `hostKey` may be stale after
 * a hand edit of the URL, so callers load the item itself before acting on it.
 */
export async function listHostSources(
  { doc, table }: TableContext,
  host: string,
): Promise<HostSourceEntry[]> {
  const out: HostSourceEntry[] = [];
  const entries = queryItems(doc, {
    TableName: table,
    IndexName: SOURCES_BY_HOST_INDEX,
    KeyConditionExpression: 'hostKey = :h',
    ExpressionAttributeValues: { ':h': host },
  });
  for await (const item of entries)
    if (typeof item.sourceId === 'string')
      out.push({ sourceId: item.sourceId, active: item.active === true || item.active === 'true' });
  return out;
}

/**
 * Issue 27: writes an item's `hostKey` (the `byHost` index's key) where it is missing or stale — an item
 * written by hand in the console, or whose `systemUrl` was edited by hand. One conditional UpdateItem,
 * only while `systemUrl` is still the one the key was derived from: a hand edit since then is left to
 * the next read, which derives the key again. Touches nothing else (no edit trail: no setting changed).
 * `false` when the condition failed (the item changed or is gone).
 */
export async function stampSourceHostKey(
  { doc, table }: TableContext,
  sourceId: string,
  derived: { systemUrl: string; hostKey: string },
): Promise<boolean> {
  return unlessConditionFails(
    doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { sourceId },
        UpdateExpression: 'SET hostKey = :h',
        ConditionExpression: 'systemUrl = :u',
        ExpressionAttributeValues: { ':h': derived.hostKey, ':u': derived.systemUrl },
      }),
    ),
  );
}

/**
 * Write an item of another fetch (OTH: `itemKind` set — geo, broadcasts), validated by its own schema
 * before (shared/config); `mustNotExist` as for council sources.
 */
export async function putOtherItem(
  doc: DynamoDBDocumentClient,
  table: string,
  item: { sourceId: string; itemKind: string } & Record<string, unknown>,
  opts: { mustNotExist?: boolean } = {},
): Promise<boolean> {
  return putItem(doc, table, item, opts);
}

/**
 * What an unknown id is called per kind of other item when it is switched: the code stays each kind's
 * own (operators' scripts read `GEO_SOURCE_NOT_FOUND` / `BROADCAST_NOT_FOUND` from the CLI's JSON).
 */
const NOT_FOUND_BY_KIND = {
  [GEO_ITEM_KIND]: { code: 'GEO_SOURCE_NOT_FOUND', what: 'geo source', list: 'ingestor geo list' },
  [BROADCAST_ITEM_KIND]: {
    code: 'BROADCAST_NOT_FOUND',
    what: 'broadcast source',
    list: 'ingestor broadcasts status',
  },
} as const;

export type OtherItemKind = keyof typeof NOT_FOUND_BY_KIND;

/** No item of that kind under that id (absent, or a council item or one of the other kind). */
export class OtherItemNotFoundError extends IngestorError {
  readonly sourceId: string;
  readonly itemKind: OtherItemKind;

  constructor(sourceId: string, itemKind: OtherItemKind) {
    const { code, what, list } = NOT_FOUND_BY_KIND[itemKind];
    super(code, `no ${what} ${sourceId} (${list})`);
    this.sourceId = sourceId;
    this.itemKind = itemKind;
  }
}

/**
 * OTH-3: switches one geo or broadcast item on or off on its own (a municipality's request) and stamps
 * the edit trail; nothing else of the item changes. One conditional update: the item must exist with
 * that `itemKind` — an unknown id is never created as a bare `{ sourceId, active }` (an unconditional
 * update would), and an edit made meanwhile (a note, the URL) is never overwritten by a stale copy.
 * Not validated first on purpose: switching off must work also for an item on-call left broken, and an
 * invalid item stays skipped by its run however `active` is set.
 */
export async function setOtherItemActive(
  { doc, table }: TableContext,
  target: { sourceId: string; itemKind: OtherItemKind },
  active: boolean,
  trail: { by: string; now: Date },
): Promise<void> {
  const stamp = { updatedAt: trail.now.toISOString(), updatedBy: trail.by } satisfies EditTrail;
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { sourceId: target.sourceId },
        UpdateExpression: 'SET active = :active, updatedAt = :updatedAt, updatedBy = :updatedBy',
        ConditionExpression: 'itemKind = :kind',
        ExpressionAttributeValues: {
          ':active': active,
          ':updatedAt': stamp.updatedAt,
          ':updatedBy': stamp.updatedBy,
          ':kind': target.itemKind,
        },
      }),
    );
  } catch (err) {
    if ((err as { name?: string }).name !== 'ConditionalCheckFailedException') throw err;
    throw new OtherItemNotFoundError(target.sourceId, target.itemKind);
  }
}

async function putItem(
  doc: DynamoDBDocumentClient,
  table: string,
  item: Record<string, unknown>,
  opts: { mustNotExist?: boolean },
): Promise<boolean> {
  try {
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: item,
        ...(opts.mustNotExist ? { ConditionExpression: 'attribute_not_exists(sourceId)' } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (opts.mustNotExist && (err as { name?: string }).name === 'ConditionalCheckFailedException') {
      return false;
    }
    throw err;
  }
}

import {
  type DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  type QueryCommandOutput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';

/**
 * The machine-written `STATE` item of a source in the State table: scheduling state (owned by
 * shared/schedule), the sync lease (SCH-5: at most one sync per source), the last run's outcome, the
 * planner's last decision and any config problems — everything on-call needs to see why a source waits.
 *
 * The lease is two flat attributes so that every write is one conditional single-item update
 * (dynalite has no transactions; none are needed).
 */
export const STATE_SK = 'STATE';
/** All STATE items share one index partition; `dueAt` orders them for the planner. */
export const PLANNER_SHARD = 'planner';
/** Present only while a sync holds the lease: the sparse `byLease` index lists running syncs. */
export const LEASE_SHARD = 'lease';

export const sourcePk = (sourceId: string) => `SOURCE#${sourceId}`;

export interface SourceStateItem<Schedule = Record<string, unknown>> {
  pk: string;
  sk: typeof STATE_SK;
  sourceId: string;
  dueShard: typeof PLANNER_SHARD;
  /** ISO instant of the next planner decision that may change something for this source. */
  dueAt: string;
  schedule?: Schedule;
  leaseRunId?: string;
  leaseKind?: string;
  /** ISO instant; a lease past this is free again (an instance that died cannot block a source). */
  leaseUntil?: string;
  lastRun?: Record<string, unknown>;
  lastDecision?: { action: string; kind?: string; reason: string; decidedAt: string; ruleIds?: string[] };
  configProblems?: { field: string; message: string }[];
  /**
   * RATE-2 (issue 13): host and interval of the source's last valid config, written by the planner. A
   * broken Sources item keeps counting for its host's pace with it until the item is fixed.
   */
  lastValidPace?: { host: string; requestIntervalSeconds: number };
  manualRequest?: { kind: 'sync' | 'full'; requestedAt: string; by?: string };
}

export async function getSourceState<S>(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
): Promise<SourceStateItem<S> | undefined> {
  const res = await doc.send(
    new GetCommand({ TableName: table, Key: { pk: sourcePk(sourceId), sk: STATE_SK }, ConsistentRead: true }),
  );
  return res.Item as SourceStateItem<S> | undefined;
}

/** Every STATE item through the `byDue` index (no table scan), oldest due first. */
export async function listSourceStates<S>(
  doc: DynamoDBDocumentClient,
  table: string,
  opts: { dueBefore?: string } = {},
): Promise<SourceStateItem<S>[]> {
  const out: SourceStateItem<S>[] = [];
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byDue',
        KeyConditionExpression:
          opts.dueBefore === undefined ? 'dueShard = :shard' : 'dueShard = :shard AND dueAt <= :before',
        ExpressionAttributeValues: {
          ':shard': PLANNER_SHARD,
          ...(opts.dueBefore === undefined ? {} : { ':before': opts.dueBefore }),
        },
        ExclusiveStartKey: startKey,
      }),
    );
    out.push(...((page.Items ?? []) as SourceStateItem<S>[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return out;
}

/** The STATE items that carry a lease (running syncs, and expired leases of runs that died). */
export async function listLeasedSourceStates<S>(
  doc: DynamoDBDocumentClient,
  table: string,
): Promise<SourceStateItem<S>[]> {
  const out: SourceStateItem<S>[] = [];
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byLease',
        KeyConditionExpression: 'leaseShard = :shard',
        ExpressionAttributeValues: { ':shard': LEASE_SHARD },
        ExclusiveStartKey: startKey,
      }),
    );
    out.push(...((page.Items ?? []) as SourceStateItem<S>[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return out;
}

/** Ids of every source that has a STATE item (keys only: cheap even for many sources). */
export async function listStateSourceIds(doc: DynamoDBDocumentClient, table: string): Promise<Set<string>> {
  const ids = new Set<string>();
  let startKey: QueryCommandOutput['LastEvaluatedKey'];
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: 'byDue',
        KeyConditionExpression: 'dueShard = :shard',
        ExpressionAttributeValues: { ':shard': PLANNER_SHARD },
        ProjectionExpression: 'sourceId',
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) ids.add(String(item.sourceId));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return ids;
}

function isConditionFailure(err: unknown): boolean {
  return (err as { name?: string }).name === 'ConditionalCheckFailedException';
}

/**
 * `SET`/`REMOVE` clauses for plain attributes, with placeholder names so any attribute name is safe.
 * `tag` keeps placeholders of several calls in one expression apart. Undefined values are skipped.
 */
function attributeClauses(
  set: Record<string, unknown>,
  remove: string[],
  tag: string,
): { sets: string[]; removes: string[]; names: Record<string, string>; values: Record<string, unknown> } {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = {};
  const sets: string[] = [];
  Object.entries(set).forEach(([k, v], i) => {
    if (v === undefined) return;
    names[`#${tag}${i}`] = k;
    values[`:${tag}${i}`] = v;
    sets.push(`#${tag}${i} = :${tag}${i}`);
  });
  const removes = remove.map((k, i) => {
    names[`#${tag}r${i}`] = k;
    return `#${tag}r${i}`;
  });
  return { sets, removes, names, values };
}

/** Set attributes of the STATE item (creating it), without touching the lease. */
export async function patchSourceState(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  patch: Partial<Omit<SourceStateItem, 'pk' | 'sk' | 'leaseRunId' | 'leaseUntil' | 'leaseKind'>>,
  remove: string[] = [],
): Promise<void> {
  const { sets, removes, names, values } = attributeClauses(
    { ...patch, sourceId, dueShard: PLANNER_SHARD },
    remove,
    'f',
  );
  // A new item needs a dueAt for the index; "now-ish" epoch 0 makes it due at once.
  if (patch.dueAt === undefined) {
    names['#due'] = 'dueAt';
    values[':dueDefault'] = new Date(0).toISOString();
    sets.push('#due = if_not_exists(#due, :dueDefault)');
  }
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: { pk: sourcePk(sourceId), sk: STATE_SK },
      UpdateExpression: `SET ${sets.join(', ')}${removes.length > 0 ? ` REMOVE ${removes.join(', ')}` : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/**
 * SCH-5: take the source's sync lease if it is free, expired, or already ours (a continuation of the
 * same run). One conditional write; `false` means another run holds it.
 */
export async function acquireSyncLease(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  lease: { runId: string; kind: string; until: Date; now: Date; extra?: Record<string, unknown> },
): Promise<boolean> {
  const extra = attributeClauses(lease.extra ?? {}, [], 'x');
  const extraSets = extra.sets.map((clause) => `, ${clause}`).join('');
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: sourcePk(sourceId), sk: STATE_SK },
        UpdateExpression:
          'SET leaseRunId = :run, leaseKind = :kind, leaseUntil = :until, leaseShard = :leaseShard, sourceId = :sid, dueShard = :shard' +
          // A new item needs a dueAt for the index, unless the caller sets one.
          (lease.extra?.dueAt === undefined ? ', dueAt = if_not_exists(dueAt, :epoch)' : '') +
          extraSets,
        ConditionExpression: 'attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseRunId = :run',
        ...(extraSets === '' ? {} : { ExpressionAttributeNames: extra.names }),
        ExpressionAttributeValues: {
          ...extra.values,
          ':run': lease.runId,
          ':kind': lease.kind,
          ':until': lease.until.toISOString(),
          ':now': lease.now.toISOString(),
          ':sid': sourceId,
          ':shard': PLANNER_SHARD,
          ':leaseShard': LEASE_SHARD,
          ...(lease.extra?.dueAt === undefined ? { ':epoch': new Date(0).toISOString() } : {}),
        },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/**
 * Release the lease held by `runId` and record the run's results in the same write. `remove` names
 * further attributes to drop with it (e.g. the lease's `running` details).
 */
export async function releaseSyncLease(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  runId: string,
  patch: Record<string, unknown> = {},
  remove: string[] = [],
): Promise<boolean> {
  const { sets, removes, names, values } = attributeClauses(patch, remove, 'f');
  const removeAll = ['leaseRunId', 'leaseKind', 'leaseUntil', 'leaseShard', ...removes].join(', ');
  try {
    await doc.send(
      new UpdateCommand({
        TableName: table,
        Key: { pk: sourcePk(sourceId), sk: STATE_SK },
        UpdateExpression: `${sets.length > 0 ? `SET ${sets.join(', ')} ` : ''}REMOVE ${removeAll}`,
        ConditionExpression: 'leaseRunId = :run',
        ...(Object.keys(names).length > 0 ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: { ...values, ':run': runId },
      }),
    );
    return true;
  } catch (err) {
    if (isConditionFailure(err)) return false;
    throw err;
  }
}

/**
 * SCH-7 / FULL-8: record an operator's request for a sync or a full sync in the source's schedule state
 * and make the source due, so the planner decides on it at its next tick (the rules still apply there).
 * One update of the nested attribute: a concurrent write of other schedule fields is not lost.
 */
export async function requestManualSync(
  doc: DynamoDBDocumentClient,
  table: string,
  sourceId: string,
  request: { kind: 'sync' | 'full'; requestedAt: string },
  initialSchedule: object,
): Promise<void> {
  const key = { pk: sourcePk(sourceId), sk: STATE_SK };
  // A source never planned has no schedule map yet: create it first, then set the request inside it.
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression:
        'SET #s = if_not_exists(#s, :initial), sourceId = :sid, dueShard = :shard, dueAt = if_not_exists(dueAt, :epoch)',
      ExpressionAttributeNames: { '#s': 'schedule' },
      ExpressionAttributeValues: {
        ':initial': initialSchedule,
        ':sid': sourceId,
        ':shard': PLANNER_SHARD,
        ':epoch': new Date(0).toISOString(),
      },
    }),
  );
  await doc.send(
    new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: 'SET #s.#r = :request, dueAt = :now',
      ExpressionAttributeNames: { '#s': 'schedule', '#r': 'manualRequest' },
      ExpressionAttributeValues: { ':request': request, ':now': request.requestedAt },
    }),
  );
}

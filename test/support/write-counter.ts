import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Counts the items a DynamoDB client writes, by sort-key family (`CURSOR`, `LIST`, `SCRAPE` …): a
 * middleware on the real SDK client in front of the real local peer (dynalite). Every Put, Update and
 * Delete is one item, a BatchWrite each of its requests (`batch`).
 */
let counters = 0;

export function countWrites(dynamo: DynamoDBClient): {
  /** Items written since the last reset, by family. */
  families(): Record<string, number>;
  total(): number;
  reset(): void;
} {
  let writes: string[] = [];
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName ?? '';
      const input = args.input as {
        Item?: { sk?: unknown };
        Key?: { sk?: unknown };
        RequestItems?: Record<string, unknown[]>;
      };
      if (/^(Put|Update|Delete)/.test(name)) {
        // The document client's plain values, or the low-level client's `{ S }`.
        const raw = input.Item?.sk ?? input.Key?.sk;
        const sk = String((raw as { S?: string } | undefined)?.S ?? raw ?? '');
        writes.push(sk.split('#')[0] as string);
      } else if (name.startsWith('BatchWrite')) {
        for (const list of Object.values(input.RequestItems ?? {}))
          for (const _ of list) writes.push('batch');
      }
      return next(args);
    },
    // A name of its own: a client may carry several counters (the stack refuses a name twice).
    { step: 'initialize', name: `countWrites${++counters}` },
  );
  return {
    families: () => {
      const out: Record<string, number> = {};
      for (const f of writes) out[f] = (out[f] ?? 0) + 1;
      return out;
    },
    total: () => writes.length,
    reset: () => {
      writes = [];
    },
  };
}

/** One DynamoDB call as the client sent it: command (`Query`, `Scan`, `GetItem` …), table, index. */
export interface DynamoCall {
  command: string;
  table: string;
  index?: string;
}

/**
 * Every call a DynamoDB client makes, reads included — the same middleware as `countWrites`, so a
 * test can say "one Query per page, never a Scan" of the client a component really uses.
 */
export function countCalls(dynamo: DynamoDBClient): { calls(): DynamoCall[]; reset(): void } {
  let calls: DynamoCall[] = [];
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; IndexName?: string };
      calls.push({
        command: (context.commandName ?? '').replace(/Command$/, ''),
        table: input.TableName ?? '',
        ...(input.IndexName !== undefined ? { index: input.IndexName } : {}),
      });
      return next(args);
    },
    { step: 'initialize', name: `countCalls${++counters}` },
  );
  return {
    calls: () => [...calls],
    reset: () => {
      calls = [];
    },
  };
}

/**
 * Mirror index keys (`MIRROR#<source>#<type>`) the client's BatchGets ask for from now on — how many,
 * and the type of each in order: the sync's index lookups, whichever table holds the items.
 */
export function countIndexKeysRead(dynamo: DynamoDBClient): { keys(): number; types(): string[] } {
  const types: string[] = [];
  dynamo.middlewareStack.add(
    (next, context) => async (args) => {
      if (String(context.commandName).startsWith('BatchGet')) {
        const items = (args.input as { RequestItems?: Record<string, { Keys?: { pk?: unknown }[] }> })
          .RequestItems;
        for (const table of Object.values(items ?? {}))
          for (const key of table.Keys ?? []) {
            const pk = (key.pk as { S?: string } | undefined)?.S ?? key.pk;
            if (String(pk).startsWith('MIRROR#')) types.push(String(pk).split('#')[2] as string);
          }
      }
      return next(args);
    },
    { step: 'initialize', name: `countIndexKeysRead${++counters}` },
  );
  return { keys: () => types.length, types: () => [...types] };
}

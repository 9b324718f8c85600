import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CHANGE_BATCH_MAX, CHANGE_DETAIL_TYPE, CHANGE_EVENT_SOURCE } from './constants';
import type { ChangeEvent, ChangeSink } from './types';

/** Consecutive slices of at most `size` items (pure). */
export function batches<T>(items: readonly T[], size = CHANGE_BATCH_MAX): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * EventBridge: one PutEvents call per 10 events, on the default or a named bus. PutEvents is not
 * all-or-nothing — it answers per entry — so only the entries that carry an `ErrorCode` (or a whole
 * call that failed after the SDK's retries) come back as undelivered.
 */
export function eventBridgeSink(client: EventBridgeClient, busName: string): ChangeSink {
  return {
    name: `eventbridge:${busName}`,
    async deliver(events) {
      const failed: ChangeEvent[] = [];
      for (const batch of batches(events)) {
        try {
          const out = await client.send(
            new PutEventsCommand({
              Entries: batch.map((event) => ({
                EventBusName: busName,
                Source: CHANGE_EVENT_SOURCE,
                DetailType: CHANGE_DETAIL_TYPE,
                Time: new Date(event.at),
                Detail: JSON.stringify(event),
              })),
            }),
          );
          if ((out.FailedEntryCount ?? 0) === 0) continue;
          batch.forEach((event, i) => {
            if (out.Entries?.[i]?.ErrorCode !== undefined) failed.push(event);
          });
        } catch {
          failed.push(...batch);
        }
      }
      return failed;
    },
  };
}

/** Local mode: appends one JSON event per line (the file is the feed a local consumer tails). */
export function fileSink(path: string): ChangeSink {
  return {
    name: `file:${path}`,
    async deliver(events) {
      if (events.length === 0) return [];
      try {
        await mkdir(dirname(path), { recursive: true });
        await appendFile(path, events.map((e) => `${JSON.stringify(e)}\n`).join(''), 'utf8');
        return [];
      } catch {
        return [...events];
      }
    },
  };
}

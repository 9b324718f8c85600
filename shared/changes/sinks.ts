import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { EventBus } from '../store';
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
  const bus = new EventBus(client, busName);
  return {
    name: `eventbridge:${busName}`,
    async deliver(events) {
      const failed: ChangeEvent[] = [];
      for (const batch of batches(events)) {
        try {
          const refused = await bus.put(
            batch.map((event) => ({
              source: CHANGE_EVENT_SOURCE,
              detailType: CHANGE_DETAIL_TYPE,
              time: new Date(event.at),
              detail: JSON.stringify(event),
            })),
          );
          batch.forEach((event, i) => {
            if (refused[i]) failed.push(event);
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

import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import { createFetchRuntime, HOST_INTERVAL_REFRESH_MS } from '../../shared/fetch-runtime';
import { composePreview } from '../../shared/preview';
import { useAwsTestbed } from '../support/aws';

/**
 * Issue 29 (noticed at the last stop): the preview's RATE-9 host budget and the RATE-2 host interval
 * index each scanned the whole Sources table every 5 minutes per warm instance. Now one Sources cache
 * in the fetch runtime serves both. The scans are counted by a middleware on a real SDK client in front
 * of the real local DynamoDB (dynalite).
 */
describe('RATE-2 / RATE-9: one scan of the Sources table serves the host intervals and the preview', () => {
  const bed = useAwsTestbed();

  /** Clients of their own whose Scans of the Sources table are counted. */
  function countingClients(): { clients: FeedClients; scans: () => number } {
    const clients = createFeedClients(bed.env);
    let scans = 0;
    clients.doc.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { TableName?: string };
        if (context.commandName === 'ScanCommand' && input.TableName === bed.env.SOURCES_TABLE) scans += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countSourcesScans' },
    );
    return { clients, scans: () => scans };
  }

  const putSource = (sourceId: string, requestIntervalSeconds: number) =>
    bed.clients.doc.send(
      new PutCommand({
        TableName: bed.env.SOURCES_TABLE,
        Item: {
          sourceId,
          systemUrl: `https://ris-once.example.de/oparl/${sourceId}`,
          active: true,
          requestIntervalSeconds,
        },
      }),
    );

  it('RATE-2 / RATE-9: the preview cold start (host intervals and host budget warmed together) scans the table once', async () => {
    await putSource('once-a', 2);
    const { clients, scans } = countingClients();
    const runtime = await composePreview(bed.env, { clients });
    try {
      expect(scans()).toBe(1);
    } finally {
      await runtime.close();
      destroyFeedClients(clients);
    }
  });

  it('RATE-2: readers within 5 minutes share one scan; after 5 minutes one more scan, and the changed interval applies', async () => {
    await putSource('once-a', 2);
    const { clients, scans } = countingClients();
    let nowMs = Date.parse('2026-03-02T08:00:00Z');
    const runtime = await createFetchRuntime(bed.env, { clients, nowMs: () => nowMs });
    try {
      // The host interval index and a second reader (the preview's host budget) at once, then again.
      await Promise.all([runtime.hostIntervals.refresh(), runtime.sources.read()]);
      await Promise.all([runtime.hostIntervals.refresh(), runtime.sources.read()]);
      expect(scans()).toBe(1);
      expect(runtime.hostIntervals.forHost('ris-once.example.de')).toBe(2000);

      await putSource('once-a', 7);
      nowMs += HOST_INTERVAL_REFRESH_MS - 1;
      await runtime.hostIntervals.refresh();
      expect(runtime.hostIntervals.forHost('ris-once.example.de')).toBe(2000);

      nowMs += 1;
      const [, load] = await Promise.all([runtime.hostIntervals.refresh(), runtime.sources.read()]);
      expect(scans()).toBe(2);
      expect(load.parsed.map((p) => (p.ok ? p.source.requestIntervalSeconds : undefined))).toEqual([7]);
      expect(runtime.hostIntervals.forHost('ris-once.example.de')).toBe(7000);
    } finally {
      await runtime.close();
      destroyFeedClients(clients);
    }
  });
});

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local EventBridge peer speaking the real protocol (AWS JSON 1.1, `X-Amz-Target: AWSEvents.PutEvents`)
 * on loopback, for the change feed's tests: the real SDK client talks to it over HTTP. It keeps every
 * accepted entry and, like EventBridge, refuses a call of more than 10 entries. Faults are injected
 * around it (client middleware, test/support/aws-faults.ts), never inside it.
 */
export interface EventBridgePeer {
  endpoint: string;
  /** Entry counts of each PutEvents call received. */
  calls: number[];
  entries: { EventBusName?: string; Source: string; DetailType: string; Detail: string }[];
  /** The parsed `Detail` of every accepted entry, in order. */
  details(): Record<string, unknown>[];
  stop(): Promise<void>;
}

export const PUT_EVENTS_MAX = 10;

export async function startEventBridgePeer(): Promise<EventBridgePeer> {
  const calls: number[] = [];
  const entries: EventBridgePeer['entries'] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
        res.end(JSON.stringify(body));
      };
      if (req.headers['x-amz-target'] !== 'AWSEvents.PutEvents')
        return reply(400, { __type: 'UnknownOperationException', message: 'only PutEvents' });
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { Entries?: typeof entries };
      const batch = input.Entries ?? [];
      calls.push(batch.length);
      if (batch.length < 1 || batch.length > PUT_EVENTS_MAX)
        return reply(400, { __type: 'ValidationException', message: 'Entries must hold 1 to 10 items' });
      entries.push(...batch);
      reply(200, {
        FailedEntryCount: 0,
        Entries: batch.map((_, i) => ({ EventId: `event-${entries.length - batch.length + i}` })),
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    entries,
    details: () => entries.map((e) => JSON.parse(e.Detail) as Record<string, unknown>),
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    },
  };
}

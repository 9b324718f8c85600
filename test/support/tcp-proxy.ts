import { createConnection, createServer, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback in front of a real peer (e.g. the Upstash-REST adapter of one simulated
 * instance), so a test can break that one path while others keep working:
 *   - `stall()`: connections stay open but nothing is forwarded either way (a network black hole:
 *     calls run into their own timeouts);
 *   - `kill()`: every open connection is reset and new ones are refused (the peer is gone);
 *   - `slow(ms)`: requests go through at once, every answer byte comes `ms` later (a starved or far
 *     peer: it runs the call, the caller's timeout may fire before the answer arrives);
 *   - `heal()`: back to forwarding.
 */
export interface TcpProxy {
  port: number;
  /** `http://127.0.0.1:<port>` for HTTP peers. */
  url: string;
  readonly mode: 'open' | 'stalled' | 'killed' | 'slow';
  stall(): void;
  slow(answerDelayMs: number): void;
  kill(): void;
  heal(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host?: string; port: number }): Promise<TcpProxy> {
  let mode: TcpProxy['mode'] = 'open';
  let answerDelayMs = 0;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const server = createServer((client) => {
    if (mode === 'killed') {
      client.resetAndDestroy();
      return;
    }
    const upstream = createConnection({ host: target.host ?? '127.0.0.1', port: target.port });
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop);
    upstream.on('error', drop);
    client.on('close', drop);
    upstream.on('close', drop);
    // Forward by hand so a stall can hold bytes back without closing anything.
    client.on('data', (chunk) => {
      if (mode === 'open' || mode === 'slow') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'open') client.write(chunk);
      // Timers of equal delay fire in order: the answer's bytes stay in order.
      if (mode === 'slow') setTimeout(() => client.write(chunk), answerDelayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return mode;
    },
    stall() {
      mode = 'stalled';
    },
    slow(ms) {
      mode = 'slow';
      answerDelayMs = ms;
    },
    kill() {
      mode = 'killed';
      for (const { client, upstream } of pairs) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    heal() {
      mode = 'open';
    },
    async close() {
      for (const { client, upstream } of pairs) {
        client.destroy();
        upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

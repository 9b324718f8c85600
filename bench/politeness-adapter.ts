import { setPriority } from 'node:os';
import { startUpstashAdapter, type UpstashAdapter } from '../test/support/upstash-adapter';

/**
 * The Upstash-REST adapter in a process of its own for bench/politeness.ts: in production Redis is a
 * remote service, so its HTTP work must not share an event loop with the bench's arrival recorder.
 */
let adapter: UpstashAdapter | undefined;

process.on(
  'message',
  async (message: { type: string; redisUrl?: string; token?: string; priority?: number }) => {
    if (message.type === 'start' && message.redisUrl && message.token) {
      if (message.priority) setPriority(message.priority);
      adapter = await startUpstashAdapter({ redisUrl: message.redisUrl, token: message.token });
      process.send?.({ type: 'started', url: adapter.url, token: adapter.token });
    } else if (message.type === 'count') {
      process.send?.({ type: 'count', count: adapter?.requestCount() ?? 0 });
    } else if (message.type === 'stop') {
      await adapter?.stop();
      process.send?.({ type: 'stopped' }, () => process.exit(0));
    }
  },
);
process.send?.({ type: 'ready' });

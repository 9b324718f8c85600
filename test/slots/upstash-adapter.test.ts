import { Redis } from '@upstash/redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRedisClient, type RedisPeer, startRedisPeer } from '../support/redis';

// The adapter is test support, but every Redis test stands on it: prove it speaks the protocol the
// production client expects, including the parts the slot scripts rely on (EVALSHA → EVAL fallback).
describe('Upstash REST adapter in front of redis-server', () => {
  let peer: RedisPeer;

  beforeAll(async () => {
    peer = await startRedisPeer();
  });
  afterAll(async () => peer.stop());

  it('keeps strings exact and returns integers as numbers', async () => {
    const { redis } = peer;

    await redis.set('adapter:s', '42', { px: 60_000 });
    await redis.set('adapter:u', 'Grüße \u0000 ✓');
    const incremented = await redis.incr('adapter:n');

    expect(await redis.get('adapter:s')).toBe('42');
    expect(await redis.get('adapter:u')).toBe('Grüße \u0000 ✓');
    expect(await redis.get('adapter:missing')).toBeNull();
    expect(incremented).toBe(1);
    expect(await redis.pttl('adapter:s')).toBeGreaterThan(59_000);
  });

  it('runs a pipeline and reports a failing command in its place', async () => {
    const pipeline = peer.redis.pipeline();
    pipeline.set('adapter:p', 'x');
    pipeline.incr('adapter:p');
    pipeline.get('adapter:p');

    const results = await pipeline.exec({ keepErrors: true });

    expect(results[0]).toEqual({ result: 'OK', error: undefined });
    expect(results[1]?.error).toMatch(/not an integer/);
    expect(results[2]?.result).toBe('x');
  });

  it('runs multi-exec atomically and flattens HGETALL', async () => {
    const { redis } = peer;
    await redis.hset('adapter:h', { a: '1', b: '2' });

    const tx = redis.multi();
    tx.incr('adapter:tx');
    tx.incr('adapter:tx');
    tx.hgetall('adapter:h');
    const results = await tx.exec();

    // Raw client: the wire form is a flat array; a deserialising client makes it an object again.
    expect(results).toEqual([1, 2, ['a', '1', 'b', '2']]);
    const parsing = new Redis({ url: peer.adapter.url, token: peer.adapter.token, enableTelemetry: false });
    expect(await parsing.hgetall('adapter:h')).toEqual({ a: 1, b: 2 });
  });

  it('evaluates scripts, and createScript falls back from EVALSHA to EVAL on NOSCRIPT', async () => {
    const { redis } = peer;
    await redis.scriptFlush();
    const script = redis.createScript<[number, string]>(
      "return {tonumber(ARGV[1]) + 1, redis.call('TYPE', KEYS[1])['ok']}",
    );

    await expect(redis.evalsha('0'.repeat(40), [], [])).rejects.toThrow(/NOSCRIPT/);
    expect(await script.exec(['adapter:none'], ['41'])).toEqual([42, 'none']);
    expect(await redis.eval('return ARGV[1]', [], ['7'])).toBe('7');
    expect(await redis.scriptExists(script.sha1)).toEqual([1]);
  });

  it('rejects a wrong token', async () => {
    const intruder = new Redis({ url: peer.adapter.url, token: 'wrong', enableTelemetry: false });

    await expect(intruder.get('adapter:s')).rejects.toThrow(/Unauthorized/);
  });

  it('answers 5xx while Redis is down, so the client sees an error', async () => {
    const { startRedisServer } = await import('../support/redis');
    const { startUpstashAdapter } = await import('../support/upstash-adapter');
    const server = await startRedisServer();
    const adapter = await startUpstashAdapter({ redisUrl: server.url, token: 't' });
    const redis = createTestRedisClient(adapter);
    await redis.set('k', 'v');

    await server.stop();

    await expect(redis.get('k')).rejects.toThrow(/redis unavailable/);
    await adapter.stop();
  });
});

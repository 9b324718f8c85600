import { GetObjectCommand } from '@aws-sdk/client-s3';
import { beforeAll, describe, expect, it } from 'vitest';
import { startFakeCouncil } from '../../demo';
import {
  createLayeredRobotsStore,
  createMemoryRobotsStore,
  createS3RobotsStore,
  isRobotsCacheEntry,
  type RobotsCacheStore,
  robotsObjectKey,
} from '../../shared/fetch';
import { nextCacheEntry, type RobotsCacheEntry } from '../../shared/robots';
import { useAwsTestbed } from '../support/aws';
import { api, InstantClock, makeKit } from '../support/fetch-kit';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2026, 9, 16, 8, 0, 0);

function rulesEntry(body: string, at = T0): RobotsCacheEntry {
  return nextCacheEntry(undefined, { kind: 'response', status: 200, body, etag: '"v1"' }, at);
}

describe('robots.txt stores (ROB-5: 24 h per hostname and agent, shared by every instance)', () => {
  const testbed = useAwsTestbed();
  let shared: RobotsCacheStore;
  beforeAll(() => {
    shared = createS3RobotsStore({ s3: testbed.clients.s3, bucket: testbed.env.BUCKET });
  });

  it('keys entries as robots/<host>/<agent-token>.json, lower-cased', () => {
    expect(robotsObjectKey('RIS.Example.de', 'Mandari-Ingestor')).toBe(
      'robots/ris.example.de/mandari-ingestor.json',
    );
  });

  it('the S3 store round-trips an entry and answers undefined for a missing one', async () => {
    const entry = rulesEntry('User-agent: *\nDisallow: /x\n');

    await shared.put('ris.example.de', 'mandari-ingestor', entry);

    expect(await shared.get('ris.example.de', 'mandari-ingestor')).toEqual(entry);
    expect(await shared.get('ris.example.de', 'stadtbot')).toBeUndefined();
    const object = await testbed.clients.s3.send(
      new GetObjectCommand({
        Bucket: testbed.env.BUCKET,
        Key: 'robots/ris.example.de/mandari-ingestor.json',
      }),
    );
    expect(JSON.parse(await object.Body!.transformToString())).toMatchObject({ kind: 'rules', etag: '"v1"' });
  });

  it('an object that is not an entry counts as missing (fetched again), never as "allowed"', () => {
    expect(isRobotsCacheEntry({ kind: 'rules' })).toBe(false);
    expect(isRobotsCacheEntry({ kind: 'allowed', fetchedAt: 1 })).toBe(false);
    expect(isRobotsCacheEntry(rulesEntry(''))).toBe(true);
  });

  it('the layered store answers from memory while fresh, and reads the shared copy once memory is stale', async () => {
    const clock = new InstantClock(T0);
    const counting = { gets: 0 };
    const inner = createMemoryRobotsStore();
    const sharedCounting: RobotsCacheStore = {
      get: (h, a) => {
        counting.gets += 1;
        return inner.get(h, a);
      },
      put: (h, a, e) => inner.put(h, a, e),
    };
    const layered = createLayeredRobotsStore({ shared: sharedCounting, clock });
    await layered.put('ris-a.test', 'mandari-ingestor', rulesEntry('User-agent: *\nAllow: /\n', T0));

    await layered.get('ris-a.test', 'mandari-ingestor');
    expect(counting.gets).toBe(0);

    // Another instance refreshed the shared copy; ours went stale after 24 h.
    const newer = rulesEntry('User-agent: *\nDisallow: /\n', T0 + 25 * HOUR);
    await inner.put('ris-a.test', 'mandari-ingestor', newer);
    clock.advance(25 * HOUR);
    expect(await layered.get('ris-a.test', 'mandari-ingestor')).toEqual(newer);
    expect(counting.gets).toBe(1);
  });

  it('the layered store keeps working on its memory when the shared store fails', async () => {
    const clock = new InstantClock(T0);
    const failures: string[] = [];
    const broken: RobotsCacheStore = {
      get: async () => {
        throw new Error('S3 down');
      },
      put: async () => {
        throw new Error('S3 down');
      },
    };
    const layered = createLayeredRobotsStore({
      shared: broken,
      clock,
      onSharedError: (_e, op) => failures.push(op),
    });
    const entry = rulesEntry('');

    await layered.put('ris-a.test', 'mandari-ingestor', entry);
    clock.advance(25 * HOUR);

    expect(await layered.get('ris-a.test', 'mandari-ingestor')).toEqual(entry);
    expect(failures).toEqual(['put', 'get']);
  });

  it('ROB-5: two fetchers (two "function instances") with their own memory layer over one S3 store fetch robots.txt once', async () => {
    const council = await startFakeCouncil({ hostname: 'ris-s3.test' });
    const clock = new InstantClock(T0);
    const a = makeKit({ clock, store: createLayeredRobotsStore({ shared, clock }) });
    const b = makeKit({ clock, store: createLayeredRobotsStore({ shared, clock }) });
    try {
      await a.fetcher.fetch(council.systemUrl, api());
      await b.fetcher.fetch(council.bodyListUrl, api());

      expect(council.requests.filter((r) => r.path === '/robots.txt')).toHaveLength(1);
      expect(await shared.get('ris-s3.test', 'mandari-ingestor')).toMatchObject({ kind: 'rules' });
    } finally {
      await a.close();
      await b.close();
      await council.close();
    }
  });
});

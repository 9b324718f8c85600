import { describe, expect, it } from 'vitest';
import { type FakeCouncil, startFakeCouncil } from '../../demo';
import { syncTablesFromEnv } from '../../shared/engine';
import { createRunContext } from '../../shared/fetch';
import { type SyncDeps, syncSource } from '../../shared/oparl/engine';
import { politeFetcherPort } from '../../shared/oparl/polite-port';
import { takedownGuards } from '../../shared/takedown';
import { useAwsTestbed } from '../support/aws';
import { type Kit, makeKit } from '../support/fetch-kit';
import { testSource, uniqueSourceId } from '../support/oparl-harness';

// The production path: engine → politeFetcherPort → polite fetcher (robots.txt, pace, retries, ID-4)
// → the fake council on a `.test` hostname, with the fetcher's real pacing code on virtual time.
describe('the engine through the polite fetcher', () => {
  const bed = useAwsTestbed();

  async function run(fake: FakeCouncil, kit: Kit, kind: 'full' | 'incremental' = 'full') {
    const source = testSource(uniqueSourceId('polite'), fake.systemUrl);
    const fetcher = politeFetcherPort({
      fetcher: kit.fetcher,
      source,
      runContext: createRunContext(source.sourceId),
    });
    const deps: SyncDeps = {
      fetcher,
      clients: bed.clients,
      tables: syncTablesFromEnv(bed.env),
      takedowns: takedownGuards({
        clients: bed.clients,
        bucket: bed.env.BUCKET,
        stateTable: bed.env.STATE_TABLE,
      }),
      now: () => new Date(kit.clock.now()),
      sleep: async (ms) => kit.clock.advance(ms),
    };
    return syncSource(deps, source, { kind, runId: `r-${source.sourceId}` });
  }

  async function withFake(
    fn: (fake: FakeCouncil, kit: Kit) => Promise<void>,
    options: Parameters<typeof startFakeCouncil>[0] = {},
  ) {
    const kit = makeKit();
    const fake = await startFakeCouncil({
      hostname: 'ris-a.test',
      objectsPerList: 2,
      pageSize: 2,
      now: () => new Date(kit.clock.now()),
      ...options,
    });
    try {
      await fn(fake, kit);
    } finally {
      await fake.close();
      await kit.close();
    }
  }

  it('mirrors a source politely: identified, robots.txt first, one request per second, counted', async () => {
    await withFake(async (fake, kit) => {
      const report = await run(fake, kit);
      expect(report).toMatchObject({ complete: true, failures: [] });
      const api = fake.requests.filter((r) => r.path !== '/robots.txt');
      expect(report.requests).toBe(api.length);
      expect(fake.requests[0]?.path).toBe('/robots.txt');
      expect(
        api.every((r) => r.userAgent?.startsWith('mandari-ingestor/') && r.accept === 'application/json'),
      ).toBe(true);
      // RATE-1: the slots made every request after the first wait for its second.
      const waited = kit.clock.slotSleeps.reduce((a, b) => a + b, 0);
      expect(waited).toBeGreaterThanOrEqual((fake.requests.length - 2) * 900);
    });
  });

  it('ROB-8: robots.txt forbidding everything → robots-forbids-all, no API request', async () => {
    await withFake(
      async (fake, kit) => {
        const report = await run(fake, kit);
        expect(report.failures.map((f) => f.kind)).toContain('robots-forbids-all');
        expect(report.requests).toBe(0);
        expect(fake.requests.filter((r) => r.path !== '/robots.txt')).toHaveLength(0);
      },
      { robots: 'User-agent: mandari-ingestor\nDisallow: /\n' },
    );
  });

  it('ROB-7: robots.txt unreachable → robots-unreachable, the run stops', async () => {
    await withFake(
      async (fake, kit) => {
        const report = await run(fake, kit);
        expect(report.failures.map((f) => f.kind)).toEqual(['robots-unreachable']);
        expect(report).toMatchObject({ complete: false, stopReason: 'failure' });
        expect(fake.requests.filter((r) => r.path !== '/robots.txt')).toHaveLength(0);
      },
      { robots: { status: 503 } },
    );
  });

  it('ID-4: 403 for our agent only → ua-blocked after the one comparison request', async () => {
    await withFake(
      async (fake, kit) => {
        const report = await run(fake, kit);
        expect(report.failures.map((f) => f.kind)).toEqual(['ua-blocked']);
        const api = fake.requests.filter((r) => r.path !== '/robots.txt');
        expect(api).toHaveLength(2);
        expect(api[1]?.userAgent ?? '').not.toContain('mandari-ingestor');
      },
      {
        faults: [
          {
            match: '/oparl/*',
            fault: { kind: 'status', status: 403 },
            userAgentIncludes: 'mandari-ingestor',
          },
        ],
      },
    );
  });

  it('ERR-3: five server errors in a row → 5xx-series, the run stops', async () => {
    await withFake(
      async (fake, kit) => {
        const report = await run(fake, kit);
        expect(report.failures.map((f) => f.kind)).toContain('5xx-series');
        expect(report.stopReason).toBe('failure');
        // System and body list answer; the lists fail: 3 attempts for the first, the series after 2 more.
        expect(fake.requests.filter((r) => r.status === 500)).toHaveLength(5);
      },
      { faults: [{ match: '/oparl/v1/bodies/*', fault: { kind: 'status', status: 500 } }] },
    );
  });
});

import { describe, expect, it } from 'vitest';
import {
  BREAKER_FAILURE_THRESHOLD,
  createMemoryRobotsStore,
  createRobotsGate,
  createRunContext,
  HostSlotTimeoutError,
} from '../../../shared/fetch';
import { admit, waitError } from '../../../shared/fetch/admission';
import { planFor } from '../../../shared/fetch/plan';
import { parseRobots } from '../../../shared/robots';

/**
 * Admission of a hop: address check for IP literals, the run's end, the breaker, the robots.txt
 * verdict. robots.txt state comes from a real in-memory store already holding the host's rules;
 * a gate that would have to load robots.txt fails the test (nothing may be fetched here).
 */

const UA = 'mandari-ingestor/1.0 (+https://mandari.de/ingestor/)';
const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };
const now = Date.UTC(2026, 11, 1, 4, 0, 0);
const clock = { now: () => now };

async function gateWith(robotsTxt: string) {
  const store = createMemoryRobotsStore();
  await store.put('ris.test', 'mandari-ingestor', {
    kind: 'rules',
    robots: parseRobots(robotsTxt),
    fetchedAt: now,
    status: 200,
  });
  const robotsGate = createRobotsGate({
    store,
    clock,
    fetchRobotsTxt: async () => {
      throw new Error('robots.txt must not be fetched: the store holds a fresh copy');
    },
  });
  return { robotsGate, addressPolicy: {}, clock };
}

function progressOf(href: string, deadline = now + 5_000) {
  return { url: new URL(href), hops: [], deadline, waitMs: 0 };
}

describe('admission (RED-2, ERR-2, ROB)', () => {
  it('ROB: a path robots.txt disallows is refused; an allowed one is admitted with its Crawl-delay (ROB-10)', async () => {
    const deps = await gateWith('User-agent: *\nDisallow: /private\nCrawl-delay: 5\n');
    const plan = planFor('https://ris.test/a', { purpose: 'scraper', source }, UA);
    await expect(admit(deps, plan, progressOf('https://ris.test/private/x'))).rejects.toMatchObject({
      code: 'ROBOTS_DISALLOWED',
    });
    await expect(admit(deps, plan, progressOf('https://ris.test/public'))).resolves.toBe(5);
  });

  it('ROB-4: robots.txt itself is always admitted (the gate is not asked)', async () => {
    const deps = await gateWith('User-agent: *\nDisallow: /\n');
    const plan = planFor('https://ris.test/robots.txt', { purpose: 'robots', source }, UA);
    await expect(admit(deps, plan, progressOf('https://ris.test/robots.txt'))).resolves.toBeUndefined();
  });

  it('ERR-2: an open breaker refuses with CIRCUIT_OPEN before robots.txt is looked at', async () => {
    const deps = await gateWith('User-agent: *\nAllow: /\n');
    const runContext = createRunContext('src-1');
    for (let i = 0; i < BREAKER_FAILURE_THRESHOLD; i += 1)
      runContext.recordAttempt('ris.test', { kind: 'network' }, now);
    const plan = planFor('https://ris.test/a', { purpose: 'api', source, runContext }, UA);
    await expect(admit(deps, plan, progressOf('https://ris.test/a'))).rejects.toMatchObject({
      code: 'CIRCUIT_OPEN',
    });
  });

  it("nothing is admitted once the run's time is up (RUN_DEADLINE)", async () => {
    const deps = await gateWith('User-agent: *\nAllow: /\n');
    const runContext = createRunContext('src-1', { endsAtMs: now });
    const plan = planFor('https://ris.test/a', { purpose: 'api', source, runContext }, UA);
    await expect(admit(deps, plan, progressOf('https://ris.test/a'))).rejects.toMatchObject({
      code: 'RUN_DEADLINE',
    });
  });

  it('RED-2 (1): an IP literal that is not public is refused before anything else', async () => {
    const deps = await gateWith('User-agent: *\nAllow: /\n');
    const plan = planFor('http://10.0.0.1/a', { purpose: 'api', source }, UA);
    await expect(admit(deps, plan, progressOf('http://10.0.0.1/a'))).rejects.toMatchObject({
      code: 'ADDRESS_NOT_PUBLIC',
    });
  });

  it("waitError: a wait that ran into the run's end is RUN_DEADLINE, one within the budget stays HOST_SLOT_TIMEOUT", () => {
    const runContext = createRunContext('src-1', { endsAtMs: now + 1_000 });
    const plan = planFor('https://ris.test/a', { purpose: 'api', source, runContext }, UA);
    const timeout = new HostSlotTimeoutError('https://ris.test/a', 1_000);
    expect(waitError(plan, progressOf('https://ris.test/a', now + 1_000), timeout)).toMatchObject({
      code: 'RUN_DEADLINE',
    });
    expect(waitError(plan, progressOf('https://ris.test/a', now + 500), timeout)).toBe(timeout);
  });
});

import type { FakeCouncilOptions } from '../../../test/support/fake-council';
import { robotsScripts } from '../../../test/support/fake-council';
import type { WireRequest } from '../council-process';
import { CHAOS_GZIP_BOMB_BYTES, type ChaosCouncil } from '../councils';
import type { Scenario, ScenarioContext } from '../scenario';
import { CHAOS_T0, type Deployment } from '../stack';

const DAY_MS = 24 * 60 * 60_000;

/**
 * Hostile council servers (the fake council's fault book): the sync must stay polite and, once the
 * fault is gone, the mirror must equal a clean run's. One source per scenario, planner tick → queue →
 * sync function body, one cadence step (31 min, past ERR-5's first-time pauses) between ticks.
 */
const SOURCE = 'src';
const LIST = (list: string) => `/oparl/v1/bodies/1/${list}`;

interface HostileSpec {
  name: string;
  rules: string[];
  holds: string;
  defect?: number;
  council?: FakeCouncilOptions;
  /** Sets the faults; may return a check run after the syncs. */
  setup(
    council: ChaosCouncil,
    ctx: ScenarioContext,
  ): Promise<void | ((council: ChaosCouncil, d: Deployment) => Promise<void> | void)>;
  /** The server may refuse us for good: no convergence expected, only politeness. */
  converges?: boolean;
  /** Objects the clean run has that this one cannot (e.g. a list the server never serves). */
  expectedAbsent?: (name: string) => boolean;
  /** Ticks a cadence step apart before the next night's full sync (default 2). */
  maxTicks?: number;
}

function hostile(spec: HostileSpec): Scenario {
  return {
    name: spec.name,
    rules: spec.rules,
    holds: spec.holds,
    ...(spec.defect !== undefined ? { defect: spec.defect } : {}),
    async run(ctx) {
      const council = await ctx.council(spec.council ?? {});
      const after = await spec.setup(council, ctx);
      const d = await ctx.deploy();
      await d.addSource({ sourceId: SOURCE, systemUrl: council.systemUrl });
      const instance = await d.instance();
      // The first full sync meets the fault; one cadence step later (past ERR-5's first-time pauses)
      // an incremental; then the next night's full sync, which reads every list whole again (FULL-1).
      const ticks = spec.maxTicks ?? 2;
      for (let tick = 1; tick <= ticks; tick += 1) {
        await d.tick();
        await d.drain(instance);
        d.clock.advance(31 * 60_000);
      }
      if (spec.converges !== false) {
        d.clock.ms = CHAOS_T0 + DAY_MS;
        await d.tick();
        await d.drain(instance);
        const state = await d.state(SOURCE);
        const last = state?.lastRun as { ok?: boolean; complete?: boolean } | undefined;
        if (!(last?.ok && last.complete))
          ctx.notes.state = { lastRun: last, schedule: state?.schedule, decision: state?.lastDecision };
        if (!spec.expectedAbsent)
          ctx.check(
            last?.ok === true && last.complete === true,
            "the next night's full sync was not complete",
          );
        await ctx.compare(d, SOURCE, council, spec.council ?? {}, spec.expectedAbsent);
      }
      if (typeof after === 'function') await after(council, d);
    },
  };
}

/** Every request but robots.txt is forbidden (robots.txt forbids all, or is unreachable). */
const allButRobots = (r: WireRequest) => r.path !== '/robots.txt';

/** The gap after the first answer with `status` to the next request, ms (RATE-8 Retry-After). */
function gapAfter(council: ChaosCouncil, status: number): number | undefined {
  const reqs = [...council.requests].sort((a, b) => a.at - b.at);
  const i = reqs.findIndex((r) => r.status === status);
  const next = reqs[i + 1];
  return i < 0 || !next ? undefined : next.at - (reqs[i] as WireRequest).at;
}

/** A 20 KB JSON list page whose one object holds a 10,000-deep array (issue 13 #5). */
function nestingBomb(council: ChaosCouncil): string {
  const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
  const id = `${council.url}${LIST('organization')}/1`;
  return `{"data":[{"id":"${id}","type":"https://schema.oparl.org/1.0/Organization","name":"Rat","keyword":${deep}}],"pagination":{},"links":{}}`;
}

export const HOSTILE_SCENARIOS: Scenario[] = [
  hostile({
    name: 'server-500-once',
    rules: ['ERR-1'],
    holds: 'A 500 on a list page is retried after a pause; the run completes with nothing lost.',
    setup: (c) => c.setFault(`${LIST('paper')}*`, { kind: 'status', status: 500 }, { times: 1 }),
  }),
  hostile({
    name: 'server-503-retry-after',
    rules: ['RATE-8', 'ERR-1'],
    holds:
      'A 503 with Retry-After: 3 is honoured (no request to the host before it ends), then the run completes.',
    setup: async (c, ctx) => {
      await c.setFault(
        `${LIST('meeting')}*`,
        { kind: 'status', status: 503, headers: { 'retry-after': '3' } },
        { times: 1 },
      );
      return (council) => {
        const gap = gapAfter(council, 503);
        ctx.check(
          gap === undefined || gap >= 3_000,
          `next request ${Math.round(gap ?? 0)} ms after Retry-After: 3`,
        );
      };
    },
  }),
  hostile({
    name: 'server-429-retry-after',
    rules: ['RATE-8'],
    holds: 'A 429 with Retry-After: 2 is honoured, then the run completes.',
    setup: async (c, ctx) => {
      await c.setFault(
        `${LIST('person')}*`,
        { kind: 'status', status: 429, headers: { 'retry-after': '2' } },
        { times: 1 },
      );
      return (council) => {
        const gap = gapAfter(council, 429);
        ctx.check(
          gap === undefined || gap >= 2_000,
          `next request ${Math.round(gap ?? 0)} ms after Retry-After: 2`,
        );
      };
    },
  }),
  hostile({
    name: 'server-hangup-once',
    rules: ['ERR-1'],
    holds: 'A connection closed without an answer is retried; nothing lost.',
    setup: (c) => c.setFault(`${LIST('organization')}*`, { kind: 'hangup' }, { times: 1 }),
  }),
  hostile({
    name: 'server-slow-headers',
    rules: ['SCH-12', 'RATE-4'],
    holds: 'An answer whose head takes 2.5 s keeps its slot; the pace and the in-flight cap hold.',
    setup: (c) => c.setFault(`${LIST('paper')}*`, { kind: 'delay', delayMs: 2_500 }, { times: 2 }),
  }),
  hostile({
    name: 'server-slowloris-body',
    rules: ['RATE-4'],
    holds: 'A body trickling in 400-byte chunks completes under the body deadline; nothing lost.',
    setup: (c) =>
      c.setFault(`${LIST('meeting')}*`, { kind: 'slowBody', intervalMs: 50, chunkBytes: 400 }, { times: 1 }),
  }),
  hostile({
    name: 'server-gzip-bomb-once',
    rules: ['ERR-1'],
    holds:
      'A gzip bomb ends as RESPONSE_TOO_LARGE (decoded bytes counted), is retried, and the run completes.',
    setup: (c) =>
      c.setFault(
        `${LIST('paper')}*`,
        { kind: 'gzipBomb', inflatedBytes: CHAOS_GZIP_BOMB_BYTES },
        { times: 1 },
      ),
  }),
  hostile({
    name: 'server-redirect-loop',
    rules: ['RED-1'],
    holds: 'A redirect loop stops after 5 hops; a later attempt reads the page.',
    setup: (c) => c.setFault(`${LIST('person')}*`, { kind: 'redirectLoop' }, { times: 1 }),
  }),
  hostile({
    name: 'server-redirect-chain',
    rules: ['RED-1'],
    holds: 'A chain of 3 redirects on the same host is followed, each hop paced.',
    setup: (c) => c.setFault(`${LIST('organization')}*`, { kind: 'redirectChain', hops: 3 }, { times: 1 }),
  }),
  hostile({
    name: 'server-short-body',
    rules: ['ERR-1'],
    holds:
      'A body shorter than its Content-Length is a failed attempt, retried; nothing half-parsed is stored.',
    setup: (c) => c.setFault(`${LIST('meeting')}*`, { kind: 'contentLengthMismatch' }, { times: 1 }),
  }),
  hostile({
    name: 'server-gzip-unasked',
    rules: ['ID-2'],
    holds: 'A gzip body is decoded; the mirror equals the clean run.',
    setup: (c) => c.setFault(`${LIST('person')}*`, { kind: 'gzip' }),
  }),
  hostile({
    name: 'server-bot-wall-once',
    rules: ['DOC-5', 'ERR-1'],
    holds:
      'An HTML page with 200 instead of a JSON list is no list page: nothing stored from it, a later run completes.',
    setup: (c) =>
      c.setFault(
        `${LIST('paper')}*`,
        {
          kind: 'status',
          status: 200,
          body: '<html><body>Bitte warten …</body></html>',
          contentType: 'text/html',
        },
        { times: 1 },
      ),
  }),
  hostile({
    name: 'server-5xx-series',
    rules: ['ERR-3', 'ERR-5'],
    holds:
      'A series of 5xx ends the run early (ERR-3); after the pause the next run completes, nothing lost.',
    setup: (c) => c.setFault('/oparl/*', { kind: 'status', status: 502 }, { times: 5 }),
    maxTicks: 3,
  }),
  hostile({
    name: 'server-next-cycle',
    rules: ['SCH-11'],
    holds: 'A pagination that links back to page 1 ends; every object of the list is still mirrored.',
    setup: (c) => c.setFault(`${LIST('meeting')}*`, { kind: 'nextCycle' }, { times: 1 }),
  }),
  hostile({
    name: 'robots-disallow-all',
    rules: ['ROB-2', 'ROB-8'],
    holds: 'robots.txt disallowing everything: no request but robots.txt.',
    setup: async (c, ctx) => {
      await c.setRobots(robotsScripts.disallowAll);
      ctx.forbid(c, allButRobots);
    },
    converges: false,
    maxTicks: 2,
  }),
  hostile({
    name: 'robots-disallow-ingestor',
    rules: ['ROB-1', 'OPT-1'],
    holds: 'A group for mandari-ingestor that disallows all is obeyed even though * allows.',
    setup: async (c, ctx) => {
      await c.setRobots(robotsScripts.disallowIngestor);
      ctx.forbid(c, allButRobots);
    },
    converges: false,
    maxTicks: 2,
  }),
  hostile({
    name: 'robots-unreachable',
    rules: ['ROB-7'],
    holds: 'robots.txt answering 503: the host counts as disallowed, no other request.',
    setup: async (c, ctx) => {
      await c.setRobots(robotsScripts.unavailable);
      ctx.forbid(c, allButRobots);
    },
    converges: false,
    maxTicks: 2,
  }),
  hostile({
    name: 'robots-disallow-one-list',
    rules: ['ROB-2'],
    holds: 'A disallowed list is never requested; the other lists are mirrored in full.',
    setup: async (c, ctx) => {
      await c.setRobots('User-agent: *\nDisallow: /oparl/v1/bodies/1/paper\n');
      ctx.forbid(c, (r) => r.path.startsWith(LIST('paper')));
    },
    expectedAbsent: (name) => /^(paper|file|consultation) /.test(name),
  }),
  hostile({
    name: 'robots-not-found',
    rules: ['ROB-6'],
    holds: 'robots.txt 404 means no restrictions: the run completes under the normal pace.',
    setup: (c) => c.setRobots(robotsScripts.notFound),
  }),
  hostile({
    name: 'robots-crawl-delay-3',
    rules: ['ROB-3', 'RATE-2'],
    holds: 'Crawl-delay: 3 for our agent: never two requests closer than 3 s at the server.',
    setup: async (c, ctx) => {
      await c.setRobots(robotsScripts.crawlDelay(3));
      ctx.owe(c, 3_000);
    },
  }),
  hostile({
    name: 'server-blocks-our-agent',
    rules: ['ID-4', 'ERR-5'],
    holds: 'A 403 for our User-Agent only: one comparison request at most, then the source rests ≥ 60 min.',
    setup: async (c, ctx) => {
      await c.setFault(
        '/oparl/*',
        { kind: 'status', status: 403 },
        { userAgentIncludes: 'mandari-ingestor' },
      );
      return async (council) => {
        await council.settle();
        const ours = council.requests.filter(
          (r) => r.path !== '/robots.txt' && (r.userAgent ?? '').includes('mandari'),
        );
        ctx.notes.requestsWhileBlocked = ours.length;
        // Two ticks 31 min apart: the second must find the source resting (ERR-5: ≥ 60 min).
        ctx.check(ours.length <= 3, `${ours.length} requests while blocked (expected the first run only)`);
      };
    },
    converges: false,
    maxTicks: 2,
  }),
  hostile({
    name: 'json-nesting-bomb',
    rules: ['ERR-1', 'SCH-11'],
    defect: 5,
    holds:
      'A 20 KB list page with a 10,000-deep array is a failure of that list, named in the report; the other lists complete.',
    setup: async (c, ctx) => {
      await c.setFault(`${LIST('organization')}*`, {
        kind: 'status',
        status: 200,
        body: nestingBomb(c),
        contentType: 'application/json',
      });
      return async (_council, d) => {
        const last = (await d.state(SOURCE))?.lastRun as { failureDetails?: string[] } | undefined;
        ctx.notes.failureDetails = last?.failureDetails;
        ctx.check(
          (last?.failureDetails ?? []).some((f) => f.includes('organization')),
          'the run report does not name the organization list as failed',
        );
      };
    },
    expectedAbsent: (name) => name.startsWith('organization '),
  }),
];

import { describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  createRunContext,
  type FetchResult,
  HttpStatusError,
  NetworkError,
} from '../../../shared/fetch';
import { type ComparisonDeps, compareAfter403, comparisonFinding } from '../../../shared/fetch/comparison';
import { type Plan, planFor } from '../../../shared/fetch/plan';

/**
 * The 403 comparison (ID-4) as a behaviour. Its wire behaviour (one request without our agent,
 * within pace and robots.txt) is proven against a real server in identity.test.ts; here the
 * comparison is sent through a recording stand-in for the fetcher, which is this module's port.
 */

const UA = 'mandari-ingestor/1.0 (+https://mandari.de/ingestor/)';
const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };
const url = 'https://ris.test/oparl/v1/system';
const at = 1_700_000_000_000;

describe('comparison finding (ID-4)', () => {
  it('only 2xx means "our User-Agent is blocked"; any other status is "open"', () => {
    expect(comparisonFinding({ status: 200 }, url, at)).toEqual({ state: 'blocked', status: 200, url, at });
    expect(comparisonFinding({ status: 403 }, url, at)).toEqual({ state: 'open', status: 403, url, at });
  });

  it('a comparison robots.txt or the breaker stopped was not made (skipped); other failures are open', () => {
    expect(comparisonFinding({ error: new CircuitOpenError(url, at) }, url, at)).toMatchObject({
      state: 'skipped',
      reason: 'CIRCUIT_OPEN',
    });
    expect(comparisonFinding({ error: new NetworkError(url, new Error('reset')) }, url, at)).toEqual({
      state: 'open',
      errorCode: 'NETWORK',
      url,
      at,
    });
  });
});

describe('compareAfter403 (ID-4)', () => {
  function recordingDeps(status: number): ComparisonDeps & { sent: Plan[] } {
    const sent: Plan[] = [];
    return {
      sent,
      clock: { now: () => at },
      planFor: (target, options, overrides) => planFor(target, options, UA, overrides),
      fetch: async (_target, plan) => {
        sent.push(plan);
        return { status } as FetchResult;
      },
    };
  }

  it('ID-4: exactly one comparison per server and source run, without our agent, recorded in the run', async () => {
    const runContext = createRunContext('src-1');
    const deps = recordingDeps(200);
    const plan = planFor(url, { purpose: 'api', source, runContext }, UA);
    await compareAfter403(deps, plan, new HttpStatusError(url, 403));
    await compareAfter403(deps, plan, new HttpStatusError(url, 403));
    expect(deps.sent).toHaveLength(1);
    expect(deps.sent[0]).toMatchObject({ purpose: 'comparison', sentUserAgent: undefined, maxAttempts: 1 });
    expect(runContext.comparison('ris.test')).toEqual({ state: 'blocked', status: 200, url, at });
  });

  it('DOC-4 / ROB-6: a 403 on a file or on robots.txt triggers no comparison; nor does a fetch outside a run', async () => {
    const runContext = createRunContext('src-1');
    const deps = recordingDeps(200);
    await compareAfter403(
      deps,
      planFor(url, { purpose: 'file', source, runContext }, UA),
      new HttpStatusError(url, 403),
    );
    await compareAfter403(
      deps,
      planFor(url, { purpose: 'robots', source, runContext }, UA),
      new HttpStatusError(url, 403),
    );
    await compareAfter403(deps, planFor(url, { purpose: 'api', source }, UA), new HttpStatusError(url, 403));
    expect(deps.sent).toHaveLength(0);
    expect(runContext.comparison('ris.test')).toBeUndefined();
  });
});

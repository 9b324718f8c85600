import { describe, expect, it } from 'vitest';
import { ACCEPT_BY_PURPOSE, DEFAULT_MAX_BYTES, MAX_ATTEMPTS_BY_PURPOSE } from '../../../shared/fetch';
import { parseTarget, planFor, requestHeaders, waitDeadline } from '../../../shared/fetch/plan';
import { createRunContext } from '../../../shared/fetch/run-context';

/** The fetch plan: options checked at the boundary, defaults per purpose, the headers of every hop. */

const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };
const UA = 'mandari-ingestor/1.0 (+https://mandari.de/ingestor/; support@mandari.de)';

describe('plan: options at the boundary', () => {
  it('fills in the purpose defaults (limits, attempts) and the source agent (ID-3)', () => {
    const plan = planFor('https://ris.test/a', { purpose: 'scraper', source }, UA);
    expect(plan.maxBytes).toBe(DEFAULT_MAX_BYTES.scraper);
    expect(plan.maxAttempts).toBe(MAX_ATTEMPTS_BY_PURPOSE.scraper);
    expect(plan.sentUserAgent).toBe(UA);
    expect(plan.checkAgents).toEqual([UA]);
    expect(plan.followRedirects).toBe(true);
    expect(plan.recordAttempts).toBe(true);
  });

  it('ID-4: a comparison plan sends no agent of ours, checks `*` too, follows no redirect, records nothing', () => {
    const plan = planFor('https://ris.test/a', { purpose: 'comparison', source }, UA);
    expect(plan.sentUserAgent).toBeUndefined();
    expect(plan.checkAgents).toEqual([UA, '*']);
    expect(plan.followRedirects).toBe(false);
    expect(plan.anyStatus).toBe(true);
    expect(plan.recordAttempts).toBe(false);
  });

  it('B-3: callers may not disguise the client (User-Agent, Host … are refused with FETCH_INVALID_INPUT)', () => {
    for (const header of ['User-Agent', 'host', 'Transfer-Encoding']) {
      expect(() =>
        planFor('https://ris.test/a', { purpose: 'file', source, headers: { [header]: 'x' } }, UA),
      ).toThrow(expect.objectContaining({ code: 'FETCH_INVALID_INPUT' }));
    }
  });

  it('ID-2: API requests always send their own Accept; a caller Accept is dropped there, kept for files', () => {
    const apiPlan = planFor(
      'https://ris.test/a',
      { purpose: 'api', source, headers: { Accept: 'text/html' } },
      UA,
    );
    expect(requestHeaders(apiPlan).accept).toBe(ACCEPT_BY_PURPOSE.api);
    const filePlan = planFor(
      'https://ris.test/a',
      { purpose: 'file', source, headers: { Accept: 'application/pdf' } },
      UA,
    );
    expect(requestHeaders(filePlan).accept).toBe('application/pdf');
  });

  it('refuses negative limits, unknown purposes and methods, and an agent with control characters', () => {
    const bad = [
      () => planFor('https://ris.test/a', { purpose: 'api', source, maxBytes: -1 }, UA),
      () => planFor('https://ris.test/a', { purpose: 'nope' as 'api', source }, UA),
      () => planFor('https://ris.test/a', { purpose: 'api', source, method: 'POST' as 'GET' }, UA),
      () => planFor('https://ris.test/a', { purpose: 'api', source }, 'agent\r\nX-Evil: 1'),
    ];
    for (const call of bad) expect(call).toThrow(expect.objectContaining({ code: 'FETCH_INVALID_INPUT' }));
  });

  it('B-1: conditional validators become If-None-Match / If-Modified-Since', () => {
    const plan = planFor(
      'https://ris.test/a',
      {
        purpose: 'api',
        source,
        conditional: { etag: '"v1"', lastModified: 'Tue, 01 Dec 2026 00:00:00 GMT' },
      },
      UA,
    );
    const headers = requestHeaders(plan);
    expect(headers['if-none-match']).toBe('"v1"');
    expect(headers['if-modified-since']).toBe('Tue, 01 Dec 2026 00:00:00 GMT');
    expect(headers['user-agent']).toBe(UA);
  });
});

describe('plan: the target and the wait', () => {
  it('parseTarget: only absolute http(s) URLs without credentials; the fragment is never sent', () => {
    expect(parseTarget('https://ris.test/a#top').href).toBe('https://ris.test/a');
    for (const url of ['/relative', 'ftp://ris.test/a', 'https://user:pw@ris.test/a']) {
      expect(() => parseTarget(url)).toThrow(expect.objectContaining({ code: 'FETCH_INVALID_INPUT' }));
    }
  });

  it("waitDeadline: the wait budget, never past the run's end", () => {
    const now = 1_000_000;
    const free = planFor('https://ris.test/a', { purpose: 'api', source, maxWaitMs: 5_000 }, UA);
    expect(waitDeadline(free, now)).toBe(now + 5_000);
    const runContext = createRunContext('src-1', { endsAtMs: now + 2_000 });
    const capped = planFor(
      'https://ris.test/a',
      { purpose: 'api', source, maxWaitMs: 5_000, runContext },
      UA,
    );
    expect(waitDeadline(capped, now)).toBe(now + 2_000);
  });
});

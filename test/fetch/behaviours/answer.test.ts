import { describe, expect, it } from 'vitest';
import { createRunContext, ERROR_PAGE_TIMEOUT_MS, HTML_SNIFF_BYTES } from '../../../shared/fetch';
import {
  armBodyDeadline,
  armErrorPageDeadline,
  hopDeadline,
  looksLikeHtml,
} from '../../../shared/fetch/answer';
import { planFor } from '../../../shared/fetch/plan';

/**
 * Deadlines of an answer on the wire (issue 13: every byte under a deadline; the run's end caps
 * each request) and the DOC-5 check. Real timers with short deadlines; the wire is proven in
 * deadlines.test.ts.
 */

const UA = 'mandari-ingestor/1.0';
const source = { sourceId: 'src-1', requestIntervalSeconds: 1 };
const url = new URL('https://ris.test/file.pdf');

function abortedWith(signal: AbortSignal): Promise<unknown> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(signal.reason);
    signal.addEventListener('abort', () => resolve(signal.reason), { once: true });
  });
}

describe('answer deadlines', () => {
  it("a hop's deadline aborts with RUN_DEADLINE at the run's end (endsAtMs caps each request)", async () => {
    const now = Date.now();
    const runContext = createRunContext('src-1', { endsAtMs: now + 20 });
    const deadline = hopDeadline(planFor(url.href, { purpose: 'file', source, runContext }, UA), url, now);
    expect(await abortedWith(deadline.signal)).toMatchObject({ code: 'RUN_DEADLINE' });
  });

  it('a run already over aborts the hop at once; without a run nothing is armed until the head', () => {
    const now = Date.now();
    const over = createRunContext('src-1', { endsAtMs: now - 1 });
    expect(
      hopDeadline(planFor(url.href, { purpose: 'file', source, runContext: over }, UA), url, now).signal
        .aborted,
    ).toBe(true);
    const free = hopDeadline(planFor(url.href, { purpose: 'file', source }, UA), url, now);
    expect(free.signal.aborted).toBe(false);
    free.disarm();
  });

  it('from the head on, the body deadline aborts with a body TIMEOUT; disarm stops it', async () => {
    const plan = planFor(url.href, { purpose: 'file', source, bodyTimeoutMs: 10 }, UA);
    const deadline = hopDeadline(plan, url, Date.now());
    armBodyDeadline(deadline, plan, url);
    expect(await abortedWith(deadline.signal)).toMatchObject({ code: 'TIMEOUT', phase: 'body' });

    const calm = hopDeadline(plan, url, Date.now());
    armBodyDeadline(calm, plan, url);
    calm.disarm();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(calm.signal.aborted).toBe(false);
  });
});

describe('HTML instead of a file (DOC-5)', () => {
  it('by Content-Type, or by the first bytes (BOM and whitespace skipped)', () => {
    expect(looksLikeHtml('text/html; charset=utf-8', Buffer.from(''))).toBe(true);
    expect(
      looksLikeHtml('application/pdf', Buffer.from('\u00ef\u00bb\u00bf  <!DOCTYPE html><html>', 'latin1')),
    ).toBe(true);
    expect(looksLikeHtml('application/octet-stream', Buffer.from('<HTML><body>'))).toBe(true);
    expect(looksLikeHtml('application/pdf', Buffer.from('%PDF-1.7'))).toBe(false);
    // Only the sniffed start counts.
    const late = Buffer.concat([Buffer.alloc(HTML_SNIFF_BYTES, 0x20), Buffer.from('<html>')]);
    expect(looksLikeHtml(undefined, late)).toBe(false);
  });
});

describe('error pages (issue 13 (2))', () => {
  it('the page of an error answer is cut after ERROR_PAGE_TIMEOUT_MS when the body deadline is longer', async () => {
    const plan = planFor(url.href, { purpose: 'file', source, bodyTimeoutMs: 300_000 }, UA);
    const deadline = hopDeadline(plan, url, Date.now());
    armBodyDeadline(deadline, plan, url);
    const started = Date.now();
    armErrorPageDeadline(deadline, url);
    const reason = await abortedWith(deadline.signal);
    expect(reason).toMatchObject({ code: 'TIMEOUT', phase: 'body', timeoutMs: ERROR_PAGE_TIMEOUT_MS });
    expect(Date.now() - started).toBeGreaterThanOrEqual(ERROR_PAGE_TIMEOUT_MS - 50);
    deadline.disarm();
  });
});

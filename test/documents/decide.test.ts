import { describe, expect, it } from 'vitest';
import {
  cacheChange,
  checkAnswerOfStatus,
  classifyFailure,
  DEL_MAX_ERRORS_IN_ROW,
  DEL_SERVER_SPACING_MS,
  type DocumentItem,
  type FetchOutcome,
  headChanged,
  nextCheckAtMs,
  noteServerAnswer,
  recheckChange,
  recheckDueAt,
  recheckMethod,
  retryDelayMs,
  routeChange,
  type ServerRunState,
  sourceGate,
  textDoneChange,
} from '../../shared/documents';

/** The pure decisions, on a fixed clock (SPEC DOC-4, DOC-5, DOC-7, DEL-3, DEL-4, RATE-6, ERR-6, PHO-3). */
const NOW = new Date('2026-03-02T09:00:00.000Z');
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const later = (ms: number) => new Date(NOW.getTime() + ms).toISOString();

function doc(overrides: Partial<DocumentItem> = {}): DocumentItem {
  return {
    docId: 'd'.repeat(64),
    url: 'https://ris.example/files/1.pdf',
    sourceId: 'stadt',
    bodyId: 'https://ris.example/oparl/body/1',
    firstSeenAt: NOW.toISOString(),
    state: 'pending',
    attemptShard: 'cache#stadt',
    nextAttemptAt: NOW.toISOString(),
    ...overrides,
  };
}

const failed = (code: string, status?: number): FetchOutcome => ({
  kind: 'failed',
  code,
  ...(status === undefined ? {} : { status }),
});

describe('DOC-4 / DOC-5: what a failed fetch means', () => {
  it.each([
    ['TIMEOUT', undefined, 'ladder'],
    ['NETWORK', undefined, 'ladder'],
    ['BODY_INCOMPLETE', undefined, 'ladder'],
    ['EMPTY_BODY', undefined, 'ladder'],
    ['ROBOTS_UNREACHABLE', undefined, 'ladder'],
    ['HTTP_STATUS', 429, 'ladder'],
    ['HTTP_STATUS', 500, 'ladder'],
    ['HTTP_STATUS', 503, 'ladder'],
    ['HTTP_STATUS', 403, 'weekly'],
    ['HTTP_STATUS', 401, 'weekly'],
    ['TOO_MANY_REDIRECTS', undefined, 'weekly'],
    ['HTTP_STATUS', 404, 'gone'],
    ['HTTP_STATUS', 410, 'gone'],
    ['ROBOTS_DISALLOWED', undefined, 'blocked-robots'],
    ['HTML_INSTEAD_OF_FILE', undefined, 'blocked-html'],
    ['RESPONSE_TOO_LARGE', undefined, 'too-large'],
    ['HOST_SLOT_TIMEOUT', undefined, 'deferred'],
    ['CIRCUIT_OPEN', undefined, 'deferred'],
  ] as const)('%s %s → %s', (code, status, expected) => {
    expect(classifyFailure(code, status)).toBe(expected);
  });

  it.each([
    [1, 15 * MIN],
    [2, HOUR],
    [3, 6 * HOUR],
    [4, 24 * HOUR],
    [5, 72 * HOUR],
    [6, 7 * DAY],
    [40, 7 * DAY],
  ])('DOC-4 ladder: after failure %i in a row the next attempt is %i ms later', (failures, delay) => {
    expect(retryDelayMs(failures, 'ladder')).toBe(delay);
    expect(retryDelayMs(failures, 'weekly')).toBe(7 * DAY);
  });

  it('DOC-4: a Retry-After longer than the ladder step wins (RATE-8)', () => {
    const change = cacheChange(
      doc(),
      { kind: 'failed', code: 'HTTP_STATUS', status: 503, retryAtMs: NOW.getTime() + 2 * HOUR },
      NOW,
    );
    expect(change.set.nextAttemptAt).toBe(later(2 * HOUR));
  });
});

describe('cacheChange: the states after one attempt', () => {
  it('stored → text first (DOC-2), validators kept, failures reset', () => {
    const change = cacheChange(
      doc({ failures: 3, attempts: 3, state: 'retrying' }),
      {
        kind: 'stored',
        size: 10,
        sha256: 'a'.repeat(64),
        contentType: 'application/pdf',
        etag: '"x"',
        fetchedUrl: 'u',
      },
      NOW,
    );
    expect(change.outcome).toBe('stored');
    expect(change.set).toMatchObject({
      state: 'stored',
      attempts: 4,
      failures: 0,
      size: 10,
      storedKey: `files/stadt/${'d'.repeat(64)}`,
      attemptShard: 'text#stadt',
      nextAttemptAt: NOW.toISOString(),
    });
    expect(change.remove).toContain('lastModified');
  });

  it.each([
    ['ROBOTS_DISALLOWED', undefined, 'blocked-robots'],
    ['HTML_INSTEAD_OF_FILE', undefined, 'blocked-html'],
    ['RESPONSE_TOO_LARGE', undefined, 'too-large'],
  ] as const)('DOC-5: %s ends the attempts (%s), the document leaves every queue', (code, status, state) => {
    const change = cacheChange(doc(), failed(code, status), NOW);
    expect(change.set.state).toBe(state);
    expect(change.remove).toEqual(expect.arrayContaining(['attemptShard', 'nextAttemptAt']));
  });

  it('DOC-5: 404 six days after first sight is provisional, eight days after it is gone (DEL-3 re-check in 1 day)', () => {
    const young = cacheChange(doc({ firstSeenAt: later(-6 * DAY) }), failed('HTTP_STATUS', 404), NOW);
    expect(young.set).toMatchObject({
      state: 'gone-provisional',
      attemptShard: 'cache#stadt',
      nextAttemptAt: later(15 * MIN),
    });
    const old = cacheChange(doc({ firstSeenAt: later(-8 * DAY) }), failed('HTTP_STATUS', 410), NOW);
    expect(old.set).toMatchObject({
      state: 'gone',
      goneStatus: 410,
      goneChecks: 0,
      nextAttemptAt: later(DAY),
    });
    expect(old.set.attemptShard).toMatch(/^recheck#stadt#[0-9a-f]{16}$/);
  });

  it('nothing asked (no slot, breaker open): no attempt counted, due again', () => {
    const change = cacheChange(doc({ attempts: 2 }), { kind: 'deferred', code: 'HOST_SLOT_TIMEOUT' }, NOW);
    expect(change.outcome).toBe('deferred');
    expect(change.set.attempts).toBeUndefined();
  });
});

describe('routeChange: the intake sorts by state', () => {
  it.each([
    ['pending', {}, /^cache#stadt$/],
    ['retrying', { retryAt: later(HOUR) }, /^cache#stadt$/],
    ['stored', { sha256: 'a', textFor: 'a', size: 1, storedAt: NOW.toISOString() }, /^sample#stadt#/],
    ['stored', { sha256: 'a', size: 1 }, /^text#stadt$/],
    ['gone', { goneSince: NOW.toISOString(), goneChecks: 1 }, /^recheck#stadt#/],
  ] as const)('%s %o → %s', (state, extra, shard) => {
    const change = routeChange(doc({ state, attemptShard: 'due', ...extra }), NOW);
    expect(change.set.attemptShard).toMatch(shard);
  });

  it('DEL-1: a stored document the source changed after our fetch goes to the re-fetch queue', () => {
    const change = routeChange(
      doc({
        state: 'stored',
        sha256: 'a',
        textFor: 'a',
        lastCheckedAt: later(-DAY),
        sourceChangedAt: NOW.toISOString(),
      }),
      NOW,
    );
    expect(change.set).toMatchObject({ attemptShard: 'refetch#stadt', refetch: true });
  });

  it('a retry keeps its ladder time even when the sync moved it to the intake', () => {
    expect(routeChange(doc({ state: 'retrying', retryAt: later(6 * HOUR) }), NOW).set.nextAttemptAt).toBe(
      later(6 * HOUR),
    );
  });

  it('DOC-6: blocked documents stay out of every queue, whatever the source changes', () => {
    for (const state of ['blocked-robots', 'blocked-html', 'too-large'] as const) {
      expect(routeChange(doc({ state }), NOW).remove).toEqual(['attemptShard', 'nextAttemptAt']);
    }
  });
});

describe('sourceGate: DOC-1, DOC-5, ERR-6, DEL-5, PHO-3', () => {
  const pause = {
    until: later(HOUR),
    kind: 'failure-streak' as const,
    minutes: 60,
    because: 'x',
    ruleIds: ['ERR-4'],
  };
  it.each([
    ['active, fetching', { active: true, fileFetching: true }, {}, [true, false, true, true, true]],
    ['file fetching off', { active: true, fileFetching: false }, {}, [false, true, false, false, false]],
    ['inactive', { active: false, fileFetching: true }, {}, [false, true, true, true, false]],
    [
      'ERR-6 (3 failed runs)',
      { active: true, fileFetching: true },
      { failureStreak: 3 },
      [false, false, true, false, false],
    ],
    [
      '2 failed runs',
      { active: true, fileFetching: true },
      { failureStreak: 2 },
      [true, false, true, true, true],
    ],
    ['paused (spared)', { active: true, fileFetching: true }, { pause }, [true, false, true, true, false]],
  ])('%s → cache, disable, textFromCopy, deletion, photos', (_tag, source, schedule, expected) => {
    const gate = sourceGate(source, { failureStreak: 0, ...schedule }, NOW);
    expect([gate.cache, gate.disable, gate.textFromCopy, gate.deletion, gate.photos]).toEqual(expected);
  });
});

describe('DEL-3 / DEL-4 / RATE-6', () => {
  it('re-checks 1, 7, 25 days after gone (HEAD), the 4th after 30 days (GET)', () => {
    const since = NOW.toISOString();
    expect([0, 1, 2, 3].map((n) => recheckDueAt({ goneSince: since, goneChecks: n }))).toEqual([
      later(DAY),
      later(7 * DAY),
      later(25 * DAY),
      later(30 * DAY),
    ]);
    expect([0, 1, 2, 3].map((n) => recheckMethod({ goneChecks: n }))).toEqual([
      'HEAD',
      'HEAD',
      'HEAD',
      'GET',
    ]);
    expect(recheckDueAt({ goneSince: since, goneChecks: 4 })).toBeUndefined();
  });

  it('still missing at the 30-day GET → copy and text are deleted; present → lifted', () => {
    const gone = doc({
      state: 'gone',
      goneSince: later(-30 * DAY),
      goneChecks: 3,
      storedKey: 'files/stadt/x',
      sha256: 'a',
    });
    const last = recheckChange(gone, { kind: 'gone', status: 404 }, NOW);
    expect(last).toMatchObject({ deleteCopy: true, outcome: 'deleted' });
    expect(last.remove).toEqual(expect.arrayContaining(['storedKey', 'sha256', 'textKey', 'hasText']));
    const back = recheckChange(gone, { kind: 'not-modified' }, NOW);
    expect(back).toMatchObject({ deleteCopy: false, outcome: 'lifted', set: { state: 'stored' } });
    const neverStored = recheckChange(
      doc({ state: 'gone', goneSince: later(-DAY), goneChecks: 0 }),
      { kind: 'present', changed: undefined },
      NOW,
    );
    expect(neverStored.set).toMatchObject({ state: 'pending', attemptShard: 'cache#stadt' });
  });

  it('DEL-4: 429/503 stop the server at once, other errors after five in a row; an answer resets the row', () => {
    const s: ServerRunState = { errorsInRow: 0, stopped: false };
    for (let i = 0; i < DEL_MAX_ERRORS_IN_ROW - 1; i++)
      noteServerAnswer(s, { kind: 'error', code: 'HTTP_500', stopServer: false }, 5);
    noteServerAnswer(s, { kind: 'gone', status: 404 }, 5);
    expect(s).toMatchObject({ errorsInRow: 0, stopped: false });
    for (let i = 0; i < DEL_MAX_ERRORS_IN_ROW; i++)
      noteServerAnswer(s, { kind: 'error', code: 'TIMEOUT', stopServer: false }, 5);
    expect(s.stopped).toBe(true);
    const busy: ServerRunState = { errorsInRow: 0, stopped: false };
    noteServerAnswer(busy, checkAnswerOfStatus(503, 'HEAD', {}, {}), 5);
    expect(busy).toMatchObject({ stopped: true, stopReason: 'HTTP_503 (DEL-4)' });
  });

  it('RATE-6: the next check of a server starts ≥ 2 s after the previous one ended', () => {
    expect(nextCheckAtMs({ errorsInRow: 0, stopped: false }, DEL_SERVER_SPACING_MS, 1000)).toBe(1000);
    expect(
      nextCheckAtMs({ errorsInRow: 0, stopped: false, lastCheckEndMs: 500 }, DEL_SERVER_SPACING_MS, 1000),
    ).toBe(2500);
    expect(
      nextCheckAtMs({ errorsInRow: 0, stopped: false, lastCheckEndMs: 500 }, DEL_SERVER_SPACING_MS, 9000),
    ).toBe(9000);
  });

  it('DEL-2: a 2xx HEAD is compared by ETag, else Last-Modified; with neither it stays unclear', () => {
    expect(headChanged({ etag: '"a"' }, { etag: 'W/"a"' })).toBe(false);
    expect(headChanged({ etag: '"a"' }, { etag: '"b"' })).toBe(true);
    expect(
      headChanged(
        { lastModified: 'Mon, 02 Mar 2026 09:00:00 GMT' },
        { lastModified: 'Mon, 02 Mar 2026 09:00:00 GMT' },
      ),
    ).toBe(false);
    expect(headChanged({}, {})).toBeUndefined();
    expect(checkAnswerOfStatus(405, 'HEAD', {}, {})).toEqual({ kind: 'unclear', status: 405 });
  });
});

describe('DOC-2: the document after its text attempt', () => {
  it('a scan (no text layer) is marked and not read again for this version', () => {
    const item = doc({ state: 'stored', storedKey: 'k', sha256: 'a', size: 5, storedAt: NOW.toISOString() });
    const change = textDoneChange(
      item,
      { kind: 'text', extracted: { text: '', pages: 3, textLayer: false }, forSha256: 'a' },
      NOW,
    );
    expect(change).toMatchObject({
      outcome: 'no-text-layer',
      set: { textLayer: false, hasText: false, textFor: 'a' },
    });
    expect(change.set.attemptShard).toMatch(/^sample#/);
  });
});

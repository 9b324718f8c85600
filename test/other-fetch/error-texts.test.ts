import { describe, expect, it } from 'vitest';
import {
  CircuitOpenError,
  FetchTimeoutError,
  HostSlotTimeoutError,
  HttpStatusError,
  MAX_REDIRECTS,
  NetworkError,
  RedirectInvalidError,
  RedirectSchemeError,
  ResponseTooLargeError,
  RunDeadlineError,
  TooManyRedirectsError,
} from '../../shared/fetch';
import { AddressNotPublicError } from '../../shared/net';
import { OTHER_FETCH_ERROR_TEXTS, otherFetchErrorText } from '../../shared/other-fetch';

/**
 * OTH-4 / OTH-5: the one mapping from the fetcher's error codes to the fixed texts geo refreshes and
 * broadcast polls record (pure; the errors are the fetcher's own classes, their messages full of
 * internals on purpose). Each edge case where geo and broadcasts used to differ is one test.
 */
const URL_ = 'https://geo-internal-7.intra:8080/wfs?token=x';
const INTERNALS = /intra|10\.1|token|\/var|ECONN|8080|Error/;

function recorded(error: unknown): string {
  const text = otherFetchErrorText(error);
  expect(text).not.toMatch(INTERNALS);
  return text;
}

describe('OTH-4/OTH-5: one text per fetch error code, without internals', () => {
  it.each([
    // OTH-4's published example.
    [new HttpStatusError(URL_, 503), 'Dienst antwortete mit HTTP 503'],
    [new NetworkError(URL_, new Error('ECONNREFUSED 10.1.2.3:443')), OTHER_FETCH_ERROR_TEXTS.unreachable],
    [
      new NetworkError(URL_, new Error('socket hang up'), 'BODY_INCOMPLETE'),
      OTHER_FETCH_ERROR_TEXTS.unreachable,
    ],
    [new FetchTimeoutError(URL_, 'headers', 60_000), OTHER_FETCH_ERROR_TEXTS.timeout],
    [new Error('TypeError at /var/task/index.js:1:2'), OTHER_FETCH_ERROR_TEXTS.failed],
    [undefined, OTHER_FETCH_ERROR_TEXTS.failed],
  ])('OTH-4/OTH-5: %s', (error, text) => {
    expect(recorded(error)).toBe(text);
  });
});

describe('OTH-4/OTH-5: the edge cases where geo and broadcasts differed, decided once', () => {
  it('RED-1: more than 5 redirects name the cause with the rule number, not "failed" (geo) or "address refused" (broadcasts)', () => {
    const text = recorded(
      new TooManyRedirectsError(
        URL_,
        Array.from({ length: MAX_REDIRECTS + 1 }, () => URL_),
      ),
    );
    expect(text).toBe(OTHER_FETCH_ERROR_TEXTS.tooManyRedirects);
    expect(text).toBe(`Mehr als ${MAX_REDIRECTS} Weiterleitungen; Abruf abgebrochen`);
  });

  it('RUN_DEADLINE: the run\'s end is its own text, not the host\'s pace (geo) nor "failed" (broadcasts)', () => {
    const text = recorded(new RunDeadlineError(URL_, Date.parse('2026-12-01T04:35:00Z')));
    expect(text).toBe(OTHER_FETCH_ERROR_TEXTS.runDeadline);
    expect(text).not.toBe(OTHER_FETCH_ERROR_TEXTS.paced);
  });

  it('a `status` on an error of another code is no answer of the service: "failed", never "HTTP 502" (geo read any status)', () => {
    const thrown = Object.assign(new Error('proxy at 10.1.2.3 said 502'), { status: 502 });
    expect(recorded(thrown)).toBe(OTHER_FETCH_ERROR_TEXTS.failed);
    const otherCode = Object.assign(new RedirectInvalidError(URL_, 'no Location'), { status: 302 });
    expect(recorded(otherCode)).toBe(OTHER_FETCH_ERROR_TEXTS.redirectRefused);
  });

  it('HTTP_STATUS without an integer status is "failed", not "HTTP undefined"', () => {
    expect(recorded({ code: 'HTTP_STATUS' })).toBe(OTHER_FETCH_ERROR_TEXTS.failed);
    expect(recorded({ code: 'HTTP_STATUS', status: 50.5 })).toBe(OTHER_FETCH_ERROR_TEXTS.failed);
  });

  it('RATE-1/RATE-8: no slot within the wait names pace and Retry-After (broadcasts said "pausiert … Fehlerserie")', () => {
    expect(recorded(new HostSlotTimeoutError(URL_, 20_000))).toBe(OTHER_FETCH_ERROR_TEXTS.paced);
  });

  it('ERR-2: an open breaker has its own text, apart from a slot wait (broadcasts used one for both)', () => {
    const text = recorded(new CircuitOpenError(URL_, Date.parse('2026-12-01T04:36:00Z')));
    expect(text).toBe(OTHER_FETCH_ERROR_TEXTS.breaker);
    expect(text).not.toBe(OTHER_FETCH_ERROR_TEXTS.paced);
  });

  it('RED-2: a private address is refused with the geo wording (names the service), for both kinds', () => {
    expect(recorded(new AddressNotPublicError('geo-internal-7.intra', '10.1.2.3', 'private'))).toBe(
      'Adresse des Dienstes ist nicht erlaubt',
    );
  });

  it('a redirect to a non-http(s) or unusable location is a refused redirect, not "failed" (geo)', () => {
    expect(recorded(new RedirectSchemeError(URL_, 'file:///etc/passwd'))).toBe(
      OTHER_FETCH_ERROR_TEXTS.redirectRefused,
    );
    expect(recorded(new RedirectInvalidError(URL_, 'HTTP 302 without Location'))).toBe(
      OTHER_FETCH_ERROR_TEXTS.redirectRefused,
    );
  });

  it('size limit: one wording for both kinds ("Antwort ist zu groß"; geo said "Antwort zu groß")', () => {
    expect(recorded(new ResponseTooLargeError(URL_, 10, 'received'))).toBe('Antwort ist zu groß');
  });
});

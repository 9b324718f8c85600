/**
 * Weak spot of issue 25: other fetches (OTH — geo services, streaming providers) may carry a credential
 * in their URL (`?apikey=…`, `?token=…`, `user:password@`, an OAuth `#access_token=…`), and request log
 * lines and CLI output (`broadcasts status --json`) printed those URLs whole. Every log or CLI place
 * that shows such a URL passes it through `redactUrl`: each query value, the user info and the fragment
 * become `REDACTED`; scheme, host, port, path and the parameter names stay, so on-call still sees which
 * service and which call. A council's own URLs (OParl, RIS pages, files) carry no credential (we never
 * log in, B-3) and stay as they are: they name the objects an operator looks for.
 */
export const REDACTED = 'REDACTED';

/** Control characters never reach a log line or a terminal (a hostile URL could forge lines). */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const escapeControl = (text: string) =>
  text.replace(CONTROL, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);

/** One query string (without `?`) with every value, and every bare token, replaced. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      if (pair === '') return pair;
      const eq = pair.indexOf('=');
      // A bare token (`?0123abcd`) may itself be the credential: its name is not kept either.
      return eq < 0 ? REDACTED : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
}

/**
 * A URL of an other fetch as logs and the CLI show it. Text that is no URL is redacted the same way
 * from its first `?` (and `#`) on: a malformed URL must not slip through whole.
 */
export function redactUrl(url: string): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined) {
    const hash = url.indexOf('#');
    const withoutFragment = hash < 0 ? url : url.slice(0, hash);
    const q = withoutFragment.indexOf('?');
    const base = q < 0 ? withoutFragment : withoutFragment.slice(0, q);
    const query = q < 0 ? '' : `?${redactQuery(withoutFragment.slice(q + 1))}`;
    // User info of something URL-like that does not parse: everything before the last `@` of the
    // authority goes.
    const userInfo = base.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, `$1${REDACTED}@`);
    return escapeControl(`${userInfo}${query}${hash < 0 ? '' : `#${REDACTED}`}`);
  }
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = REDACTED;
    parsed.password = '';
  }
  // Serialised by hand: URLSearchParams would re-encode the names (and `+` / `%20` differences).
  const search = parsed.search === '' ? '' : `?${redactQuery(parsed.search.slice(1))}`;
  const hash = parsed.hash === '' ? '' : `#${REDACTED}`;
  parsed.search = '';
  parsed.hash = '';
  return escapeControl(`${parsed.toString()}${search}${hash}`);
}

/** Every URL inside free text (an error message, a config problem) through `redactUrl`. */
export function redactUrlsIn(text: string): string {
  return escapeControl(text.replace(/\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()]+/gi, (url) => redactUrl(url)));
}

/**
 * What a User-Agent we send may be — one rule for the Sources schema (ID-3 override) and the fetcher.
 * Kept in shared/config (the lowest folder that needs it) so shared/fetch reuses it without a cycle.
 */

/** A header value must not smuggle a second header or request: CR, LF, NUL and the other controls. */
export const USER_AGENT_CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/**
 * B-3 (never disguise the client): a browser's agent. Precisely, case-insensitively, at a word start:
 * a product token (name then `/`) of a browser or browser engine — Mozilla, AppleWebKit, Chrome,
 * Chromium, CriOS, Safari, Firefox, FxiOS, Gecko, Edg, EdgA, EdgiOS, Edge, OPR, Opera, Trident,
 * SamsungBrowser, YaBrowser, Vivaldi — or the phrases `like Gecko` / `MSIE ` browsers add. Our own
 * agent and any honest crawler name (`mandari-ingestor/1.2 (+https://…; it@stadt.de)`) never match.
 */
export const BROWSER_AGENT =
  /(?:^|[^a-z0-9])(?:mozilla|applewebkit|chrome|chromium|crios|safari|firefox|fxios|gecko|edg|edga|edgios|edge|opr|opera|trident|samsungbrowser|yabrowser|vivaldi)\/|like gecko|msie /i;

/** Why `value` may not be sent as our User-Agent, or undefined when it may. */
export function userAgentProblem(value: string): string | undefined {
  if (USER_AGENT_CONTROL_CHARACTERS.test(value))
    return 'must be one line without control characters (CR, LF, NUL …): a header cannot carry them';
  if (BROWSER_AGENT.test(value))
    return 'must not be a browser agent (Mozilla/, Chrome/, Safari/, Firefox/, Gecko/, Edg/ …): we never disguise the client (B-3)';
  return undefined;
}

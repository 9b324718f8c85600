import { type PageValidator, sha256Hex } from '../engine';

/** Page memory of a list walk: URL keys, the cycle guard and the conditional-request validators (B-1). */
export const MAX_VALIDATORS_PER_LIST = 8;
/** Cycle guard memory: the first and the last this many pages of a list (the cursor stays small). */
export const VISITED_EDGE = 50;

export function urlKey(url: string): string {
  return sha256Hex(url).slice(0, 16);
}

/** The host key of a URL (shared/util `hostKey`: `ris.example.de.` is `ris.example.de`), '' if none. */
export { hostKeyOrEmpty as hostOf } from '../util';

/** Keeps the first and the last `VISITED_EDGE` page hashes: cycles go back to the start or a page ago. */
export function rememberPage(visited: string[], key: string): void {
  if (visited.length >= 2 * VISITED_EDGE) visited.splice(VISITED_EDGE, 1);
  visited.push(key);
}

export function pruneValidators(all: Record<string, PageValidator>): Record<string, PageValidator> {
  const entries = Object.entries(all).sort((a, b) => (a[1].at < b[1].at ? 1 : -1));
  return Object.fromEntries(entries.slice(0, MAX_VALIDATORS_PER_LIST));
}

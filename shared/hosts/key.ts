import { hostKey } from '../util';

const KEYS = new Map<string, string>();
const KEYS_MAX = 50_000;

/**
 * `hostKey` remembered per spelling (issue 27: admission keys every due and running run each tick, and
 * `hostKey` parses a URL each time — a few % of a fleet tick). Pure: the key depends on the text alone.
 */
export function hostKeyOf(host: string): string {
  let key = KEYS.get(host);
  if (key === undefined) {
    key = hostKey(host);
    if (KEYS.size >= KEYS_MAX) KEYS.clear();
    KEYS.set(host, key);
  }
  return key;
}

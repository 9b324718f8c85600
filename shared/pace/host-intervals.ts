import type { ParsedSource, SourceConfig } from '../config';
import { hostKeyOrUndefined } from '../util';

/**
 * RATE-2, pure: the largest interval configured for any source on a hostname applies to every fetch to
 * that hostname. A source whose Sources item is broken still counts — with the pace it last had while
 * valid (kept in its State item) and with the pace the broken item still states on its own
 * (`salvageSourcePace`), whichever is slower — so a typo in one item never makes its siblings faster
 * (issue 13).
 */

/** What one source asks of its host: the host and the interval, seconds. */
export interface SourcePace {
  host: string;
  requestIntervalSeconds: number;
}

export function paceOf(source: Pick<SourceConfig, 'host' | 'requestIntervalSeconds'>): SourcePace {
  return { host: source.host, requestIntervalSeconds: source.requestIntervalSeconds };
}

/** Per broken source id: the paces that keep counting for it (last valid, salvaged). */
export type HeldPaces = Map<string, SourcePace[]>;

/** Host → the largest interval of any source on it, ms; and source → its host. */
export interface HostIntervals {
  byHostMs: Map<string, number>;
  hostOf: Map<string, string>;
}

export function hostIntervalsOf(parsed: ParsedSource[], held: HeldPaces): HostIntervals {
  const byHostMs = new Map<string, number>();
  const hostOf = new Map<string, string>();
  // One spelling per host (`hostKey`): a pace remembered in a State item before issue 25 may still
  // carry a trailing dot or capitals, and must count for the same host as its siblings.
  const keyOf = (host: string) => hostKeyOrUndefined(host) ?? host;
  const count = (pace: SourcePace) => {
    const host = keyOf(pace.host);
    byHostMs.set(host, Math.max(byHostMs.get(host) ?? 0, pace.requestIntervalSeconds * 1000));
  };
  for (const p of parsed) {
    if (p.ok) {
      hostOf.set(p.source.sourceId, p.source.host);
      count(paceOf(p.source));
      continue;
    }
    const paces = held.get(p.sourceId) ?? [];
    for (const pace of paces) count(pace);
    if (paces[0] !== undefined) hostOf.set(p.sourceId, keyOf(paces[0].host));
  }
  return { byHostMs, hostOf };
}

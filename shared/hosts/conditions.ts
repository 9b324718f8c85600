import type { HostLedgerReading } from '../slots';
import type { HostConditions } from './model';

/**
 * RATE-8, ROB-10 and item 5 of issue 27 for the host model, pure: what the host ledger says of each
 * host — a pause in force, a Crawl-delay, the other fetches' requests per second — as `HostConditions`,
 * keyed by host key like the models. The planner and the document passes read the same ledger.
 */
export function hostConditionsOf(reading: HostLedgerReading): Map<string, HostConditions> {
  const conditions = new Map<string, HostConditions>();
  const at = (host: string) => {
    let c = conditions.get(host);
    if (c === undefined) {
      c = {};
      conditions.set(host, c);
    }
    return c;
  };
  for (const [host, floor] of reading.floors) {
    if (floor.crawlDelayMs !== undefined) at(host).crawlDelayMs = floor.crawlDelayMs;
    if (floor.pausedUntilMs !== undefined) at(host).pausedUntilMs = floor.pausedUntilMs;
  }
  for (const [host, rps] of reading.otherRequestsPerSecond) at(host).otherRequestsPerSecond = rps;
  return conditions;
}

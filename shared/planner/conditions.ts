import type { HostConditions } from '../hosts';
import type { HostLedger, HostLedgerReading } from '../slots';

/**
 * RATE-8, ROB-10 and item 5 of issue 27 for the host model: what the host ledger says of each host —
 * a pause in force, a Crawl-delay, the other fetches' requests per second — as `HostConditions`, keyed
 * by host key like the models.
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

export interface HostConditionsRead {
  conditions: Map<string, HostConditions>;
  /** Why the ledger could not be read: the tick then plans without it, as before (the slots still pace). */
  unavailable?: string;
}

/**
 * One read of the ledger (one store call, whatever the number of hosts). A failing store never fails the
 * planner's tick: the fetches still keep every floor through their slots; only the planning is blind.
 */
export async function readHostConditions(ledger: HostLedger | undefined): Promise<HostConditionsRead> {
  if (ledger === undefined) return { conditions: new Map() };
  try {
    return { conditions: hostConditionsOf(await ledger.read()) };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { conditions: new Map(), unavailable: typeof code === 'string' ? code : 'ERROR' };
  }
}

import { type HostConditions, hostConditionsOf } from '../hosts';
import type { HostLedger } from '../slots';

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

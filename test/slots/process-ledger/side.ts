import { appendFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { createHostSlots, processHostLedger } from '../../../shared/slots';

/**
 * One test file's part (the `*.side.ts` files): records what the process ledger held when the file
 * started, then leaves a RATE-8 pause and other fetches on 127.0.0.1 — the host of every loopback peer —
 * as a file whose slots met a 429 would.
 */
export function ledgerSide(file: string): void {
  it(`${file}: starts with the process ledger it finds, then leaves a pause on 127.0.0.1`, async () => {
    // What the planner reads in local mode (createHostLedgerFromEnv without Upstash).
    const planner = processHostLedger();
    const found = await planner.read();
    appendFileSync(
      String(process.env.LEDGER_SCOPE_OUT),
      `${JSON.stringify({
        project: process.env.LEDGER_SCOPE_PROJECT,
        file,
        pid: process.pid,
        floors: [...found.floors.keys()],
        otherFetches: [...found.otherRequestsPerSecond.keys()],
      })}\n`,
    );
    const slots = createHostSlots();
    await slots.noteRetryAfter('http://127.0.0.1:8080/oparl', 60_000);
    await slots.ledger.recordOtherFetches(new Map([['127.0.0.1', 5]]));
    // Within one file the slots and the planner share the process ledger (RATE-9, local mode).
    expect((await planner.read()).floors.get('127.0.0.1')?.pausedUntilMs).toBeGreaterThan(Date.now());
  });
}

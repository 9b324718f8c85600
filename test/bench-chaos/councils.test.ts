import { expect, it } from 'vitest';
import { CouncilHostGoneError, startCouncilHost } from '../../bench/chaos/councils';

/**
 * The chaos bench's council process (a real child over IPC): a council closed after the process is
 * gone — the reference run's council, closed late in teardown — once killed the bench with
 * ERR_IPC_CHANNEL_CLOSED (an 'error' event on the child nobody handled) after its scenario had passed.
 * Now such a close is a no-op and any other command fails with a typed error; nothing is left unhandled
 * (vitest fails a run on an unhandled error).
 */
it('after the council process is stopped, closing a council resolves and a command fails with CHAOS_COUNCIL_HOST_GONE', async () => {
  const host = await startCouncilHost();
  const council = await host.start({});
  expect((await fetch(council.systemUrl)).status).toBe(200);
  await host.stop();
  await expect(council.close()).resolves.toBeUndefined();
  const error = await council.setFault('/paper', { kind: 'status', status: 500 }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(CouncilHostGoneError);
  expect(error).toMatchObject({ code: 'CHAOS_COUNCIL_HOST_GONE' });
  await expect(host.stop()).resolves.toBeUndefined();
}, 30_000);

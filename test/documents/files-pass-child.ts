import { createFeedClients } from '../../shared/changes';
import { parseEnv } from '../../shared/config/env';
import { composeDocuments, runFilesPass } from '../../shared/documents';
import { createTestResolver } from '../../shared/net';
import { createHostSlots } from '../../shared/slots';
import { InstantClock } from '../support/fetch-kit';

/**
 * One files pass in a process of its own, against the parent test's AWS peers and loopback file
 * server — so the test can kill it (SIGKILL) the way Lambda ends an invocation, mid-extraction.
 * argv: the peers' environment (JSON) and the pass's `now` (ISO). Prints `started` once ready.
 */
const [peersEnv, nowIso] = process.argv.slice(2);
if (peersEnv === undefined || nowIso === undefined)
  throw new Error('usage: files-pass-child <env json> <now>');
const env = parseEnv({ ...JSON.parse(peersEnv), INGESTOR_ALLOW_LOOPBACK: 'true' });
const clock = new InstantClock(Date.parse(nowIso));
const runtime = await composeDocuments(env, {
  clients: createFeedClients(env),
  resolver: createTestResolver(),
  slots: createHostSlots({ clock }),
  clock,
  sleep: clock.sleep,
});
process.stdout.write('started\n');
const report = await runFilesPass(runtime.deps, { now: new Date(nowIso) });
process.stdout.write(`${JSON.stringify(report)}\n`);
await runtime.close();

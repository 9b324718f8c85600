import { resetEnvCache, resetSecretsProvider } from '../../shared/config';
import { resetProcessHostLedger } from '../../shared/slots';

/**
 * Vitest setup (every test file): what a process keeps for its whole life in production starts afresh
 * with each test file, so files that share one worker process (the default-shared and cdk projects,
 * `isolate: false`) do not see each other's state. Production keeps it per process (RATE-9).
 *
 * - The local host ledger (`processHostLedger`): every loopback peer is host 127.0.0.1, so one file's
 *   Retry-After pauses, Crawl-delays and other fetches' counts would otherwise cut the next file's budget
 *   in its planner and passes (test/slots/process-ledger.test.ts proves two files no longer meet).
 * - The parsed environment (`env()`), read once per process: a file that stubs variables reads its own.
 * - Powertools' default Secrets Manager provider, whose SDK client keeps the endpoint it was built with:
 *   each file's secrets are asked of its own loopback peer (test/config/secrets.test.ts proves it).
 */
resetProcessHostLedger();
resetEnvCache();
resetSecretsProvider();

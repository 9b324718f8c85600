import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installApiIdKey } from '../../shared/config';

/**
 * Vitest setup (every test file): a key of the mirror's ids of its own (issue 25 point 5), as a
 * deployment has one. It is installed in this process and written to a file named by
 * INGESTOR_API_ID_KEY_FILE, so a CLI the test starts as a child process (test/support/cli-process.ts)
 * derives the same ids as the test does. Tests of the key itself install and reset their own.
 */
const key = randomBytes(32).toString('hex');
const file = join(tmpdir(), `ingestor-test-api-id-key-${process.pid}-${randomBytes(4).toString('hex')}`);
writeFileSync(file, `${key}\n`, { mode: 0o600 });
process.env.INGESTOR_API_ID_KEY_FILE = file;
installApiIdKey(key);

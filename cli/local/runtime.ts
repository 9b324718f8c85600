import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  createFeedClients,
  destroyFeedClients,
  type FeedClients,
  LOCAL_CHANGES_FILE,
} from '../../shared/changes';
import { ensureApiIdKey, type IngestorEnv, parseEnv } from '../../shared/config';
import { IngestorError } from '../../shared/errors';
import { provisionLocal } from '../../shared/store';
import type { CdnInvalidator } from '../../shared/takedown';

/**
 * Local mode: the same handlers and library as in AWS, with the AWS services replaced by real-protocol
 * peers whose data persists under `--data` (default `.data/`). `allowLoopback` is the `--allow-loopback`
 * switch — the only way any code of this project may reach 127.0.0.0/8 or ::1.
 */
export interface LocalRuntime {
  env: IngestorEnv;
  clients: FeedClients;
  dataDir: string;
  /**
   * OPT-2 "at once": where a takedown invalidates cached copies — CloudFront with `--aws` (when the
   * stack has a distribution); absent locally, where nothing caches (the command records the paths).
   */
  cdn?: CdnInvalidator;
  close(): Promise<void>;
}

export const DEFAULT_DATA_DIR = '.data';

/** The local key of the mirror's ids (shared/config api-id-key.ts), in the data folder: never committed. */
export const LOCAL_API_ID_KEY_FILE = 'api-id-key';

export async function openLocalRuntime(opts: {
  dataDir?: string;
  allowLoopback?: boolean;
}): Promise<LocalRuntime> {
  const dataDir = resolve(opts.dataDir ?? DEFAULT_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  const { startAwsPeers } = await loadLocalPeers();
  const peers = await startAwsPeers({ dataDir });
  // Operator settings (user agent, intervals) come from the real environment; endpoints from the peers.
  const base = parseEnv({
    ...process.env,
    ...peers.env,
    INGESTOR_ALLOW_LOOPBACK: opts.allowLoopback ? 'true' : 'false',
    // Issue 16: locally the change feed is a JSON lines file beside the peers' data.
    INGESTOR_CHANGE_FILE: process.env.INGESTOR_CHANGE_FILE || join(dataDir, LOCAL_CHANGES_FILE),
    // Issue 25 point 5: the key of the mirror's ids, generated once beside the peers' data.
    INGESTOR_API_ID_KEY_FILE: process.env.INGESTOR_API_ID_KEY_FILE || join(dataDir, LOCAL_API_ID_KEY_FILE),
  });
  await ensureApiIdKey(base);
  const clients = createFeedClients(base);
  const queues = await provisionLocal(clients, base);
  return {
    env: { ...base, SYNC_QUEUE_URL: queues.syncQueueUrl },
    clients,
    dataDir,
    async close() {
      await clients.changes?.flush();
      destroyFeedClients(clients);
      await peers.stop();
    },
  };
}

/** Local mode needs the stand-ins; a deployer's `npm ci --omit=dev` has none of them. */
export class LocalPeersMissingError extends IngestorError {
  constructor(cause: unknown) {
    super(
      'LOCAL_PEERS_MISSING',
      'local mode runs DynamoDB, S3 and SQS stand-ins (dynalite, s3rver, fauxqs), which are development dependencies: run `npm install` (without --omit=dev), or work on the deployed stack with --aws',
      { cause },
    );
  }
}

/**
 * The local stand-ins, loaded only when local mode starts: they are dev dependencies, so `--aws`, the
 * Lambdas and `cdk synth` never import them.
 */
async function loadLocalPeers(): Promise<typeof import('./peers')> {
  try {
    return await import('./peers');
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND') throw new LocalPeersMissingError(error);
    throw error;
  }
}

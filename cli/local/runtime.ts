import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { type IngestorEnv, parseEnv } from '../../shared/config/env';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../shared/store/clients';
import { provisionLocal } from '../../shared/store/provision';

/**
 * Local mode: the same handlers and library as in AWS, with the AWS services replaced by real-protocol
 * peers whose data persists under `--data` (default `.data/`). `allowLoopback` is the `--allow-loopback`
 * switch — the only way any code of this project may reach 127.0.0.0/8 or ::1.
 */
export interface LocalRuntime {
  env: IngestorEnv;
  clients: AwsClients;
  dataDir: string;
  close(): Promise<void>;
}

export const DEFAULT_DATA_DIR = '.data';

export async function openLocalRuntime(opts: {
  dataDir?: string;
  allowLoopback?: boolean;
}): Promise<LocalRuntime> {
  const dataDir = resolve(opts.dataDir ?? DEFAULT_DATA_DIR);
  await mkdir(dataDir, { recursive: true });
  // Loaded only here: the local stand-ins are dev dependencies a deployer's `npm ci --omit=dev` leaves out.
  const { startAwsPeers } = await import('./peers');
  const peers = await startAwsPeers({ dataDir });
  // Operator settings (user agent, intervals) come from the real environment; endpoints from the peers.
  const base = parseEnv({
    ...process.env,
    ...peers.env,
    INGESTOR_ALLOW_LOOPBACK: opts.allowLoopback ? 'true' : 'false',
  });
  const clients = createAwsClients(base);
  const queues = await provisionLocal(clients, base);
  return {
    env: { ...base, SYNC_QUEUE_URL: queues.syncQueueUrl },
    clients,
    dataDir,
    async close() {
      destroyAwsClients(clients);
      await peers.stop();
    },
  };
}

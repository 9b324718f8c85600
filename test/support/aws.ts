import { afterAll, beforeAll } from 'vitest';
import { type AwsPeers, startAwsPeers } from '../../cli/local/peers';
import { type IngestorEnv, parseEnv } from '../../shared/config/env';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../shared/store/clients';
import { type ProvisionedLocal, provisionLocal } from '../../shared/store/provision';

/** Local AWS peers with tables, bucket and queues provisioned: one call in `beforeAll`, one in `afterAll`. */
export interface AwsTestbed {
  peers: AwsPeers;
  env: IngestorEnv;
  clients: AwsClients;
  queues: ProvisionedLocal;
  stop(): Promise<void>;
}

export async function startAwsTestbed(extraEnv: Record<string, string> = {}): Promise<AwsTestbed> {
  const peers = await startAwsPeers();
  const env = parseEnv({ ...peers.env, ...extraEnv });
  const clients = createAwsClients(env);
  const queues = await provisionLocal(clients, env);
  return {
    peers,
    env: { ...env, SYNC_QUEUE_URL: queues.syncQueueUrl },
    clients,
    queues,
    async stop() {
      destroyAwsClients(clients);
      await peers.stop();
    },
  };
}

/**
 * One testbed for the calling file (or describe block): started in `beforeAll`, stopped in `afterAll`.
 * Read it inside tests through the returned getter.
 */
export function useAwsTestbed(extraEnv: Record<string, string> = {}): () => AwsTestbed {
  let bed: AwsTestbed | undefined;
  beforeAll(async () => {
    bed = await startAwsTestbed(extraEnv);
  }, 60_000);
  afterAll(async () => {
    await bed?.stop();
  });
  return () => {
    if (!bed) throw new Error('the AWS testbed is not started (useAwsTestbed runs in beforeAll)');
    return bed;
  };
}

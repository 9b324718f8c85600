import { afterAll, beforeAll } from 'vitest';
import { type AwsPeers, startAwsPeers } from '../../cli/local/peers';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../../shared/changes';
import { type IngestorEnv, parseEnv } from '../../shared/config/env';
import { type ProvisionedLocal, provisionLocal } from '../../shared/store/provision';

/** Local AWS peers with tables, bucket and queues provisioned: one call in `beforeAll`, one in `afterAll`. */
export interface AwsTestbed {
  peers: AwsPeers;
  env: IngestorEnv;
  clients: FeedClients;
  queues: ProvisionedLocal;
  stop(): Promise<void>;
}

export async function startAwsTestbed(extraEnv: Record<string, string> = {}): Promise<AwsTestbed> {
  const peers = await startAwsPeers();
  const env = parseEnv({ ...peers.env, ...extraEnv });
  const clients = createFeedClients(env);
  const queues = await provisionLocal(clients, env);
  return {
    peers,
    env: { ...env, SYNC_QUEUE_URL: queues.syncQueueUrl },
    clients,
    queues,
    async stop() {
      destroyFeedClients(clients);
      await peers.stop();
    },
  };
}

/**
 * The usual skeleton of a test file against the local AWS peers, in one line: starts a testbed in
 * `beforeAll` and stops it in `afterAll` of the calling `describe` (or file). The returned handle
 * stands for the testbed once `beforeAll` has run; touching it earlier fails loudly.
 */
export function useAwsTestbed(extraEnv: Record<string, string> = {}): AwsTestbed {
  let bed: AwsTestbed | undefined;
  beforeAll(async () => {
    bed = await startAwsTestbed(extraEnv);
  }, 60_000);
  afterAll(async () => {
    await bed?.stop();
  });
  return lateBound(() => bed, 'the AWS testbed');
}

/** A stand-in for a resource a hook creates later: every property read goes to the resource itself. */
export function lateBound<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, property) {
      const resource = current();
      if (resource === undefined) throw new Error(`${what} is used before beforeAll started it`);
      const value: unknown = Reflect.get(resource, property, resource);
      return typeof value === 'function' ? value.bind(resource) : value;
    },
  });
}

import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { createFeedClients, destroyFeedClients, type FeedClients } from '../shared/changes';
import { type IngestorEnv, parseEnv } from '../shared/config';
import { type ProvisionedLocal, provisionLocal } from '../shared/store';

/** Local AWS peers in a child process (see peers-process.ts), provisioned, with clients in this one. */
export interface RemotePeers {
  env: IngestorEnv;
  clients: FeedClients;
  queues: ProvisionedLocal;
  stop(): Promise<void>;
}

/**
 * The first line a helper process prints on stdout (its ready message: ports, URLs, the peers' env);
 * rejects when it exits first.
 */
export function firstLineOf(child: ChildProcess, what: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout as NodeJS.ReadableStream });
    rl.once('line', (l) => {
      rl.close();
      resolve(l);
    });
    child.once('exit', (code) => reject(new Error(`${what} process exited with ${code}`)));
  });
}

export async function startRemotePeers(): Promise<RemotePeers> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/peers-process.ts'], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  });
  const line = await firstLineOf(child, 'peers');
  const base = parseEnv(JSON.parse(line) as Record<string, string>);
  const clients = createFeedClients(base);
  const queues = await provisionLocal(clients, base);
  return {
    env: { ...base, SYNC_QUEUE_URL: queues.syncQueueUrl },
    clients,
    queues,
    async stop() {
      destroyFeedClients(clients);
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin?.end();
      await exited;
    },
  };
}

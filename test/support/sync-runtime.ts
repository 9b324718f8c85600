import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { parseEnv } from '../../shared/config/env';
import { resetUpstashCredentialsCache } from '../../shared/config/secrets';
import { composeSync, type SyncRuntime, type SyncRuntimeOptions } from '../../shared/sync/compose';
import type { AwsTestbed } from './aws';

/**
 * The sync function's composition root on a testbed: its queue, loopback allowed (local mode), and
 * `extraEnv` (e.g. the Upstash adapter's URL and token). Upstash credentials are read afresh.
 */
export async function startSyncRuntime(
  bed: AwsTestbed,
  options: SyncRuntimeOptions & { extraEnv?: Record<string, string> } = {},
): Promise<SyncRuntime> {
  const { extraEnv = {}, ...runtimeOptions } = options;
  resetUpstashCredentialsCache();
  const env = parseEnv({
    ...bed.peers.env,
    SYNC_QUEUE_URL: bed.queues.syncQueueUrl,
    INGESTOR_ALLOW_LOOPBACK: 'true',
    ...extraEnv,
  });
  return composeSync(env, { clients: bed.clients, ...runtimeOptions });
}

/** An active OParl source as an operator would add it (the rest from the schema's defaults). */
export async function putActiveSource(bed: AwsTestbed, sourceId: string, systemUrl: string): Promise<void> {
  await bed.clients.doc.send(
    new PutCommand({ TableName: bed.env.SOURCES_TABLE, Item: { sourceId, systemUrl, active: true } }),
  );
}

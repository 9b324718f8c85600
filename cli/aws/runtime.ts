import { CloudFrontClient } from '@aws-sdk/client-cloudfront';
import { createFeedClients, destroyFeedClients } from '../../shared/changes';
import { DEFAULT_STACK_NAME, ensureApiIdKey, parseEnv } from '../../shared/config';
import type { LocalRuntime } from '../local/runtime';
import { cloudFrontInvalidator } from './cdn';
import { requireSharedSlots } from './shared-slots';
import { createCloudFormationClient, readStackEnv } from './stack-outputs';

/**
 * `--aws [--stack NAME]`: the same commands against the deployed tables, bucket and queue, named by the
 * stack's outputs (DescribeStacks), with the operator's own AWS credentials and region. The outputs win
 * over SOURCES_TABLE & co. in the shell, so a stale variable cannot point a command at another table;
 * only the Upstash token may come from the environment (else the operator's credentials read the
 * stack's secret, as the functions do). Loopback is never reachable in this mode.
 */
export async function openAwsRuntime(opts: {
  stack?: string;
  /** The command line's words, to refuse fetching without the shared slot store (RATE-1/RATE-4). */
  positionals: readonly string[];
  processEnv?: Record<string, string | undefined>;
}): Promise<LocalRuntime> {
  const processEnv = opts.processEnv ?? process.env;
  const stackName = opts.stack ?? DEFAULT_STACK_NAME;
  const region = parseEnv({ AWS_REGION: processEnv.AWS_REGION }).AWS_REGION;
  const cloudFormation = createCloudFormationClient(region);
  let fromStack: Record<string, string>;
  try {
    fromStack = await readStackEnv(stackName, cloudFormation);
  } finally {
    cloudFormation.destroy();
  }
  const env = parseEnv({ ...processEnv, ...fromStack, INGESTOR_ALLOW_LOOPBACK: 'false' });
  requireSharedSlots(opts.positionals, env, stackName);
  // Issue 25 point 5: commands name mirror objects by the deployment's keyed ids, as the API does.
  await ensureApiIdKey(env);
  const clients = createFeedClients(env);
  // OPT-2: a takedown invalidates the stack's distribution; a stack without one caches nothing.
  const cdn =
    env.INGESTOR_CDN_DISTRIBUTION_ID !== undefined
      ? cloudFrontInvalidator(
          env.INGESTOR_CDN_DISTRIBUTION_ID,
          new CloudFrontClient({ region: env.AWS_REGION }),
        )
      : undefined;
  return {
    env,
    clients,
    dataDir: '',
    ...(cdn !== undefined ? { cdn } : {}),
    async close() {
      await clients.changes?.flush();
      destroyFeedClients(clients);
      cdn?.destroy();
    },
  };
}

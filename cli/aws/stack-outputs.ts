import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { STACK_OUTPUT_ENV, type StackOutputKey } from '../../shared/config';
import { IngestorError } from '../../shared/errors';

/** The stack is missing, not readable with these credentials, or lacks an output the CLI needs. */
export class StackOutputsError extends IngestorError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('AWS_STACK_OUTPUTS', message, options);
  }
}

/** Outputs the CLI cannot work without: the three tables, the bucket and the sync queue. */
const REQUIRED_OUTPUTS: StackOutputKey[] = [
  'SourcesTableName',
  'StateTableName',
  'DocumentsTableName',
  'MirrorBucketName',
  'SyncQueueUrl',
];

/**
 * The deployed stack's outputs (CloudFormation DescribeStacks) as environment variables for
 * `parseEnv`: table, bucket and queue names, and the Upstash URL and secret the functions use.
 * The client takes its endpoint from the SDK's usual configuration (`AWS_ENDPOINT_URL_CLOUDFORMATION`
 * is how the tests point it at a loopback server).
 */
export async function readStackEnv(
  stackName: string,
  client: CloudFormationClient,
): Promise<Record<string, string>> {
  let outputs: { OutputKey?: string; OutputValue?: string }[];
  try {
    const out = await client.send(new DescribeStacksCommand({ StackName: stackName }));
    const stack = out.Stacks?.[0];
    if (!stack) throw new StackOutputsError(`stack ${stackName} not found`);
    outputs = stack.Outputs ?? [];
  } catch (error) {
    if (error instanceof StackOutputsError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new StackOutputsError(
      `cannot read the outputs of stack ${stackName} (${message}); deploy it first, or name it with --stack, and check AWS_REGION and your credentials`,
      { cause: error },
    );
  }
  const byKey = new Map(outputs.map((o) => [o.OutputKey ?? '', o.OutputValue ?? '']));
  const missing = REQUIRED_OUTPUTS.filter((key) => !byKey.get(key));
  if (missing.length > 0) {
    throw new StackOutputsError(
      `stack ${stackName} has no output ${missing.join(', ')}: is it the ingestor stack, deployed from this version?`,
    );
  }
  const env: Record<string, string> = {};
  for (const [key, variable] of Object.entries(STACK_OUTPUT_ENV)) {
    const value = byKey.get(key);
    if (value) env[variable] = value;
  }
  return env;
}

export function createCloudFormationClient(region: string): CloudFormationClient {
  return new CloudFormationClient({ region });
}

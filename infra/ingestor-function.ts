import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, type RecursiveLoop, Runtime } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { Charset, LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Repository root: entries and the lock file are resolved from here, whatever the caller's cwd. */
export const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * esbuild's ESM output has no `require`; CommonJS dependencies bundled into it (parts of the AWS SDK,
 * undici) still call it, so the bundle defines one.
 */
export const ESM_REQUIRE_BANNER =
  "import{createRequire}from'module';const require=createRequire(import.meta.url);";

/**
 * A worker thread's entry bundled next to the function's `index.mjs` (same esbuild options), for code
 * that starts a worker from `new URL('./<outfile>', import.meta.url)` — e.g. DOC-2's text worker.
 */
export interface WorkerEntry {
  /** Relative to the repository root, e.g. `shared/documents/text-worker.ts`. */
  entry: string;
  /** File name next to `index.mjs`, e.g. `text-worker.mjs`. */
  outfile: string;
}

/**
 * The shell command that bundles a worker entry into the asset folder (run after the main bundle).
 * Exported so a test can run exactly what the stack runs.
 */
export function workerBundleCommand(worker: WorkerEntry, inputDir: string, outputDir: string): string {
  const esbuild = join(PROJECT_ROOT, 'node_modules', '.bin', 'esbuild');
  return [
    `"${esbuild}"`,
    `"${join(inputDir, worker.entry)}"`,
    '--bundle',
    '--platform=node',
    '--target=node22',
    '--format=esm',
    '--main-fields=module,main',
    '--minify',
    '--log-level=warning',
    `--banner:js="${ESM_REQUIRE_BANNER}"`,
    `--outfile="${join(outputDir, worker.outfile)}"`,
  ].join(' ');
}

export interface IngestorFunctionProps {
  /** Handler module relative to the repository root, e.g. `functions/planner.ts` (exports `handler`). */
  entry: string;
  description: string;
  timeout: Duration;
  memorySize: number;
  environment: Record<string, string>;
  reservedConcurrentExecutions?: number;
  recursiveLoop?: RecursiveLoop;
  /** How Lambda handles the function's asynchronous invocations (EventBridge Scheduler's); none if unset. */
  asyncInvoke?: AsyncInvokeProps;
  /** Worker-thread entries bundled next to `index.mjs`. */
  workerEntries?: WorkerEntry[];
}

/**
 * Lambda's handling of an asynchronously invoked function (every scheduled one): one EventInvokeConfig.
 * Issue 28: a failed invocation — thrown error, timeout, out of memory, failed init, or dropped for its
 * age — is sent after its retries to `onFailure` (the stack's FailedInvocations queue), whose one alarm
 * replaces a per-function errors alarm (infra/observability.ts).
 */
export interface AsyncInvokeProps {
  /** Invocations older than this are dropped instead of run late (and reported to `onFailure`). */
  maxEventAge: Duration;
  /** Lambda's own retries of a failed invocation (0–2; Lambda's default is 2): decided per function. */
  retryAttempts: number;
  /** Where the record of a failed invocation goes after its retries. */
  onFailure: IQueue;
}

/**
 * One ingestor Lambda: Node 22 on ARM, bundled locally by esbuild into a single ESM file, its own log
 * group with retention, and its own role that may write only to that log group. The explicit role
 * replaces the AWSLambdaBasicExecutionRole managed policy (which allows every log group, cdk-nag IAM4).
 */
export class IngestorFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /** Where its failed asynchronous invocations are recorded; undefined for a function invoked synchronously. */
  readonly failureQueue: IQueue | undefined;

  constructor(scope: Construct, id: string, props: IngestorFunctionProps) {
    super(scope, id);

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: RetentionDays.ONE_MONTH,
      // Logs are diagnostics with a one-month life; nothing to keep once the stack is gone.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${id} ingestor function`,
    });
    this.logGroup.grantWrite(this.role);
    this.failureQueue = props.asyncInvoke?.onFailure;

    this.fn = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      description: props.description,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize,
      role: this.role,
      logGroup: this.logGroup,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      recursiveLoop: props.recursiveLoop,
      // The destination grants this function's role sending to that one queue (SendMessage, GetQueueUrl,
      // GetQueueAttributes), nothing more.
      ...(props.asyncInvoke === undefined
        ? {}
        : {
            maxEventAge: props.asyncInvoke.maxEventAge,
            retryAttempts: props.asyncInvoke.retryAttempts,
            onFailure: new SqsDestination(props.asyncInvoke.onFailure),
          }),
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        minify: true,
        sourceMap: true,
        // Stack traces need the mappings only; the sources would double the map for nothing.
        sourcesContent: false,
        // Bundle everything, the SDK included: pinned versions instead of whatever the runtime
        // ships, and one file to cold-start from.
        externalModules: [],
        charset: Charset.UTF8,
        logLevel: LogLevel.WARNING,
        ...(props.workerEntries === undefined || props.workerEntries.length === 0
          ? {}
          : {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (inputDir: string, outputDir: string) =>
                  (props.workerEntries ?? []).map((w) => workerBundleCommand(w, inputDir, outputDir)),
              },
            }),
      },
    });

    // The runtime is chosen, not forgotten: the design card targets Node 22 (local development and
    // tests run the same major's language level); moving to a newer one is a deliberate upgrade.
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason:
        'Runtime pinned to nodejs22.x on purpose: the design card targets Node 22; upgrades are deliberate.',
    });
  }
}

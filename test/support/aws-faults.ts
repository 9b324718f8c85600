import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { FeedClients } from '../../shared/changes';

/**
 * Fault injection into our own stack: an AWS SDK client middleware that fails chosen calls before they
 * reach the real local peer (dynalite, s3rver, fauxqs). It sits inside the SDK's retry loop, so a
 * throttling or 5xx fault is retried by the SDK exactly as an answer of AWS would be; only when every
 * attempt fails does the caller see the error. `freeze()` models a crashed instance: from then on no
 * call of these clients ever completes (and none reaches the peer). `crashAfter(rule)` is the crash at a
 * fault point: the matching call reaches the peer and lands, then the instance dies before it hears
 * the answer (the commit happened, nothing after it does).
 */
/** `events`: EventBridge, when the clients carry one (the change feed). */
type Service = 'dynamodb' | 's3' | 'sqs' | 'events';

export type AwsFaultKind =
  /** DynamoDB `ProvisionedThroughputExceededException` / S3 `SlowDown` / SQS `ThrottlingException` (400/503). */
  | 'throttle'
  /** A 500 `InternalError` / `InternalServerError` of the service. */
  | 'server-error';

export interface AwsFaultRule {
  /** `dynamodb` covers the document client too (it shares the DynamoDB client's stack). */
  service?: Service;
  /** SDK command names, e.g. /PutItem|BatchWriteItem/ or 'PutObjectCommand'. Default: every command. */
  command?: RegExp;
  /** Further condition on the command input (table name, key prefix …). */
  when?: (input: Record<string, unknown>) => boolean;
  kind: AwsFaultKind;
  /** Fail only the next N matching attempts; default: until removed. */
  times?: number;
}

export interface AwsFaultHandle {
  readonly hits: number;
  remove(): void;
}

export interface AwsFaults {
  /** Adds a rule; matching attempts fail (every SDK retry attempt counts as one). */
  fail(rule: AwsFaultRule): AwsFaultHandle;
  /** Every later call hangs forever: the instance is dead (its pending writes never land). */
  freeze(): void;
  /** The next call matching `rule` lands at the peer, then the instance freezes (it never hears back). */
  crashAfter(rule: Omit<AwsFaultRule, 'kind' | 'times'>): void;
  readonly frozen: boolean;
  /** Attempts failed so far, per service. */
  readonly failed: Record<Service, number>;
  clear(): void;
}

const ERROR_SHAPES: Record<
  Service,
  Record<AwsFaultKind, { name: string; status: number; fault: 'client' | 'server' }>
> = {
  dynamodb: {
    throttle: { name: 'ProvisionedThroughputExceededException', status: 400, fault: 'client' },
    'server-error': { name: 'InternalServerError', status: 500, fault: 'server' },
  },
  s3: {
    throttle: { name: 'SlowDown', status: 503, fault: 'server' },
    'server-error': { name: 'InternalError', status: 500, fault: 'server' },
  },
  sqs: {
    throttle: { name: 'ThrottlingException', status: 400, fault: 'client' },
    'server-error': { name: 'InternalError', status: 500, fault: 'server' },
  },
  events: {
    throttle: { name: 'ThrottlingException', status: 400, fault: 'client' },
    'server-error': { name: 'InternalException', status: 500, fault: 'server' },
  },
};

interface Rule extends AwsFaultRule {
  hits: number;
  left: number | undefined;
}

/** The error as the SDK's deserializer would produce it from the service's answer. */
function serviceError(service: Service, kind: AwsFaultKind, command: string): Error {
  const shape = ERROR_SHAPES[service][kind];
  return Object.assign(new Error(`injected ${kind} on ${service} ${command}`), {
    name: shape.name,
    Code: shape.name,
    $fault: shape.fault,
    $metadata: { httpStatusCode: shape.status, attempts: 1, totalRetryDelay: 0 },
    $response: { statusCode: shape.status, headers: {} },
  });
}

/**
 * Installs the middleware on every client of `clients` (build a fresh set per simulated instance). The
 * document client sends through the DynamoDB client's middleware stack, so it is covered too.
 */
export function injectAwsFaults(clients: FeedClients): AwsFaults {
  let rules: Rule[] = [];
  let frozen = false;
  let crashPoints: Omit<AwsFaultRule, 'kind' | 'times'>[] = [];
  const failed = { dynamodb: 0, s3: 0, sqs: 0, events: 0 };
  const install = (
    service: Service,
    stack: { add: (mw: unknown, opts: Record<string, unknown>) => void },
  ) => {
    stack.add(
      (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: { input?: Record<string, unknown> }) => {
          if (frozen) return new Promise<never>(() => {});
          const command = context.commandName ?? '';
          const input = args.input ?? {};
          const matches = (r: Omit<AwsFaultRule, 'kind' | 'times'>) =>
            (r.service === undefined || r.service === service) &&
            (r.command === undefined || r.command.test(command)) &&
            (r.when === undefined || r.when(input));
          const crash = crashPoints.find(matches);
          if (crash) {
            crashPoints = crashPoints.filter((c) => c !== crash);
            await next(args);
            frozen = true;
            return new Promise<never>(() => {});
          }
          const rule = rules.find(matches);
          if (rule) {
            rule.hits += 1;
            if (rule.left !== undefined) {
              rule.left -= 1;
              if (rule.left <= 0) rules = rules.filter((r) => r !== rule);
            }
            failed[service] += 1;
            throw serviceError(service, rule.kind, command);
          }
          return next(args);
        },
      // Inside the retry middleware: each attempt meets the fault, as each request to AWS would.
      { step: 'finalizeRequest', priority: 'low', name: `chaosFault-${service}` },
    );
  };
  install('dynamodb', clients.dynamo.middlewareStack as never);
  install('s3', clients.s3.middlewareStack as never);
  install('sqs', clients.sqs.middlewareStack as never);
  if (clients.events) install('events', clients.events.middlewareStack as never);
  return {
    fail(rule) {
      const r: Rule = { ...rule, hits: 0, left: rule.times };
      rules.push(r);
      return {
        get hits() {
          return r.hits;
        },
        remove() {
          rules = rules.filter((x) => x !== r);
        },
      };
    },
    freeze() {
      frozen = true;
    },
    crashAfter(rule) {
      crashPoints.push(rule);
    },
    get frozen() {
      return frozen;
    },
    failed,
    clear() {
      rules = [];
      crashPoints = [];
    },
  };
}

/**
 * Waits until the instance of `faults` died at its crash point (`crashAfter`) while running `work`,
 * which never ends after that. Fails when `work` ended first (the fault point was never reached).
 */
export async function untilCrashed(
  faults: AwsFaults,
  work: Promise<unknown>,
  timeoutMs = 60_000,
): Promise<void> {
  let ended = false;
  const end = () => {
    ended = true;
  };
  void work.then(end, end);
  const deadline = Date.now() + timeoutMs;
  while (!faults.frozen) {
    if (ended) throw new Error('the work ended before its crash point');
    if (Date.now() > deadline) throw new Error('the work never reached its crash point');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs `around` around one PutItem of an item into `table` (matched by its key in the marshalled item):
 * `before` just before it is sent to the real peer, `after` once it has landed or been refused. Once.
 * A client middleware, so the races it stages (a takedown between a bulk job's read and its write) hit
 * the real conditional write. Returns the removal.
 */
export function aroundItemPut(
  doc: DynamoDBDocumentClient,
  table: string,
  key: { pk: string; sk: string },
  around: { before?: () => Promise<void>; after?: () => Promise<void> },
): () => void {
  const name = `around-put-${table}-${key.pk}-${key.sk}`;
  let fired = false;
  doc.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TableName?: string; Item?: unknown };
      // The document client's commands reach this stack as the client's (`PutItemCommand`, marshalled).
      const item = JSON.stringify(input.Item ?? {});
      const hit =
        !fired &&
        /PutItem/.test(context.commandName ?? '') &&
        input.TableName === table &&
        item.includes(key.pk) &&
        item.includes(key.sk);
      if (!hit) return next(args);
      fired = true;
      await around.before?.();
      try {
        return await next(args);
      } finally {
        await around.after?.();
      }
    },
    { step: 'initialize', name },
  );
  return () => doc.middlewareStack.remove(name);
}

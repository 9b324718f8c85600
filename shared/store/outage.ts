import { DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { SQSServiceException } from '@aws-sdk/client-sqs';
import { IngestorError } from '../errors';

/**
 * Our own outages (issue 13, ERR-4): DynamoDB throttling, an S3 5xx, SQS or a connection to AWS that
 * failed even after the SDK's own retries. Such a fault is ours, not the council's — it must never count
 * as a failed run of a source (ERR-4) or pause one. The sync message is redelivered instead, and the
 * fault is counted under its own metric.
 */

/** Error names AWS services use for throttling (the SDK retries these, then gives up with them). */
export const THROTTLING_ERROR_NAMES: ReadonlySet<string> = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'SlowDown',
  'Throttling',
  'ThrottledException',
  'RequestThrottled',
  'RequestThrottledException',
  'TooManyRequestsException',
]);

export interface StoreOutage {
  /** DynamoDB, S3, SQS, or AWS when the client is not one of ours. */
  service: string;
  /** The SDK's error name, e.g. ThrottlingException, SlowDown, InternalServerError, TimeoutError. */
  error: string;
  throttled: boolean;
}

interface SdkErrorShape {
  name?: string;
  $fault?: string;
  $metadata?: { httpStatusCode?: number };
}

/**
 * Pure: whether `err` is a transient fault of an AWS service we use. Only errors that left an AWS SDK
 * client (they carry `$metadata`, set by the SDK's retry step) count: throttling, a 5xx or server fault,
 * or no answer at all (network, timeout). A 4xx such as ConditionalCheckFailed or NoSuchKey is not an
 * outage; neither is any error of the council's server (the polite fetcher's errors have no `$metadata`).
 */
export function storeOutageOf(err: unknown, depth = 0): StoreOutage | undefined {
  if (err instanceof StoreUnavailableError) return err.outage;
  if (typeof err !== 'object' || err === null) return undefined;
  if (!('$metadata' in err)) {
    // A store wrapper may have wrapped the SDK's error: look at what caused it (a few levels deep).
    const cause = (err as { cause?: unknown }).cause;
    return cause !== undefined && depth < 4 ? storeOutageOf(cause, depth + 1) : undefined;
  }
  const e = err as SdkErrorShape;
  const status = e.$metadata?.httpStatusCode;
  const name = e.name ?? 'Error';
  const throttled = THROTTLING_ERROR_NAMES.has(name) || status === 429;
  const unavailable = e.$fault === 'server' || status === undefined || status >= 500;
  if (!throttled && !unavailable) return undefined;
  return { service: serviceOf(err), error: name, throttled };
}

/** One of our stores refused a call (a 4xx of our own making, e.g. DynamoDB's ValidationException). */
export interface StoreRefusal {
  service: string;
  error: string;
}

/**
 * Pure: whether `err` is an AWS service's error answer to one of our own calls that is not an outage —
 * a 4xx such as a ValidationException (an item over 400 KB, a malformed expression) that the SDK does not
 * retry. Like an outage it is ours, never the council's (ERR-4): the run records no outcome, the message
 * goes back for redelivery and on-call is told. The engines handle the refusals they expect (a failed
 * condition is a lost race) before one reaches here.
 */
export function storeRefusalOf(err: unknown): StoreRefusal | undefined {
  if (storeOutageOf(err) !== undefined) return undefined;
  const sdk = sdkErrorOf(err);
  if (sdk === undefined) return undefined;
  return { service: serviceOf(sdk), error: (sdk as SdkErrorShape).name ?? 'Error' };
}

/** The AWS SDK error in `err` or, when a store wrapper wrapped it, in its causes (a few levels deep). */
function sdkErrorOf(err: unknown, depth = 0): object | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ('$metadata' in err) return err;
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && depth < 4 ? sdkErrorOf(cause, depth + 1) : undefined;
}

function serviceOf(err: object): string {
  if (err instanceof DynamoDBServiceException) return 'DynamoDB';
  if (err instanceof S3ServiceException) return 'S3';
  if (err instanceof SQSServiceException) return 'SQS';
  return 'AWS';
}

/** A sync message that could not finish because one of our stores was unavailable: redeliver it. */
export class StoreUnavailableError extends IngestorError {
  readonly outage: StoreOutage;

  constructor(outage: StoreOutage, cause: unknown) {
    super(
      'STORE_UNAVAILABLE',
      `${outage.service} unavailable (${outage.error}) after the SDK's retries; ours, not the source's`,
      { retryable: true, cause },
    );
    this.outage = outage;
  }
}

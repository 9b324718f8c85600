import { ConditionalCheckFailedException, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { IngestorError } from '../../shared/errors';
import { StoreUnavailableError, storeOutageOf } from '../../shared/store/outage';

const sdkError = <T extends object>(error: T, httpStatusCode?: number): T =>
  Object.assign(error, { $metadata: { attempts: 3, ...(httpStatusCode ? { httpStatusCode } : {}) } });

describe('ERR-4 / issue 13: which errors are outages of our own stores (pure)', () => {
  it.each([
    [
      'DynamoDB throttling (a 400 the SDK retries)',
      sdkError(
        new DynamoDBServiceException({ name: 'ThrottlingException', $fault: 'client', $metadata: {} }),
        400,
      ),
      { service: 'DynamoDB', error: 'ThrottlingException', throttled: true },
    ],
    [
      'S3 503 SlowDown',
      sdkError(new S3ServiceException({ name: 'SlowDown', $fault: 'server', $metadata: {} }), 503),
      { service: 'S3', error: 'SlowDown', throttled: true },
    ],
    [
      'S3 500 InternalError',
      sdkError(new S3ServiceException({ name: 'InternalError', $fault: 'server', $metadata: {} }), 500),
      { service: 'S3', error: 'InternalError', throttled: false },
    ],
    [
      'no answer at all (the SDK retried a connection error)',
      sdkError(Object.assign(new Error('socket hang up'), { name: 'TimeoutError' })),
      { service: 'AWS', error: 'TimeoutError', throttled: false },
    ],
  ])('%s is ours', (_label, error, outage) => {
    expect(storeOutageOf(error)).toEqual(outage);
    expect(storeOutageOf(new Error('wrapped', { cause: error }))).toEqual(outage);
    expect(storeOutageOf(new StoreUnavailableError(outage, error))).toEqual(outage);
  });

  it.each([
    [
      'a failed condition (logic, not an outage)',
      sdkError(new ConditionalCheckFailedException({ message: 'failed', $metadata: {} }), 400),
    ],
    [
      'a council server’s 503 (the fetcher’s errors carry no $metadata)',
      new IngestorError('HTTP_STATUS', '503'),
    ],
    ['a plain bug', new TypeError('x is undefined')],
  ])('%s is not', (_label, error) => {
    expect(storeOutageOf(error)).toBeUndefined();
  });
});

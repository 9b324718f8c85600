import { ConditionalCheckFailedException, DynamoDBServiceException } from '@aws-sdk/client-dynamodb';
import { S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { IngestorError } from '../../shared/errors';
import { StoreUnavailableError, storeOutageOf, storeRefusalOf } from '../../shared/store/outage';

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

describe('ERR-4: which errors are refusals of our own stores — ours, yet not outages (pure)', () => {
  const invalid = sdkError(
    new DynamoDBServiceException({ name: 'ValidationException', $fault: 'client', $metadata: {} }),
    400,
  );
  it('a DynamoDB ValidationException (400, not retried) is a refusal, bare or wrapped by a store wrapper', () => {
    const refusal = { service: 'DynamoDB', error: 'ValidationException' };
    expect(storeOutageOf(invalid)).toBeUndefined();
    expect(storeRefusalOf(invalid)).toEqual(refusal);
    expect(storeRefusalOf(new Error('wrapped', { cause: invalid }))).toEqual(refusal);
  });

  it.each([
    [
      'an outage (throttling)',
      sdkError(
        new DynamoDBServiceException({ name: 'ThrottlingException', $fault: 'client', $metadata: {} }),
        400,
      ),
    ],
    [
      'a council server’s 400 (the fetcher’s errors carry no $metadata)',
      new IngestorError('HTTP_STATUS', '400'),
    ],
    ['a plain bug', new TypeError('x is undefined')],
  ])('%s is not', (_label, error) => {
    expect(storeRefusalOf(error)).toBeUndefined();
  });
});

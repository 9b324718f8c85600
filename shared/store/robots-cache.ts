import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { BucketContext } from './context';
import { ROBOTS_PREFIX, robotsObjectKey } from './keys';

/**
 * ROB-5: the shared robots.txt cache in the bucket, one JSON object per (host, agent token)
 * (`robots/<host>/<agent-token>.json`, keys.ts `robotsObjectKey`). What an entry means and whether a
 * stored value is one is shared/fetch's concern; this stores it as given.
 */
export class RobotsCacheObjects {
  constructor(
    private readonly ctx: BucketContext,
    private readonly prefix = ROBOTS_PREFIX,
  ) {}

  /** The stored value, parsed; undefined when there is none or it is no JSON. */
  async read(host: string, agentToken: string): Promise<unknown> {
    try {
      const result = await this.ctx.s3.send(
        new GetObjectCommand({
          Bucket: this.ctx.bucket,
          Key: robotsObjectKey(host, agentToken, this.prefix),
        }),
      );
      const text = (await result.Body?.transformToString('utf-8')) ?? '';
      return JSON.parse(text) as unknown;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NoSuchKey' || name === 'NotFound' || error instanceof SyntaxError) return undefined;
      throw error;
    }
  }

  async write(host: string, agentToken: string, entry: unknown): Promise<void> {
    await this.ctx.s3.send(
      new PutObjectCommand({
        Bucket: this.ctx.bucket,
        Key: robotsObjectKey(host, agentToken, this.prefix),
        Body: JSON.stringify(entry),
        ContentType: 'application/json',
      }),
    );
  }
}

import { CloudFrontClient, CreateInvalidationCommand } from '@aws-sdk/client-cloudfront';
import type { CdnInvalidator } from '../../shared/takedown';

/**
 * OPT-2 "at once" in AWS: the takedown's paths invalidated on the stack's one distribution (the preview's,
 * which also serves the API, or the API's own — output `CdnDistributionId`), with the operator's own
 * credentials (`cloudfront:CreateInvalidation`; no function issues takedowns, so no role has the grant).
 * `reference` is CloudFront's CallerReference: a retried call with the same batch is the same invalidation.
 * The endpoint follows the SDK's configuration (`AWS_ENDPOINT_URL_CLOUDFRONT` points the tests at a
 * loopback server speaking CloudFront's REST protocol).
 */
export function cloudFrontInvalidator(
  distributionId: string,
  client: CloudFrontClient = new CloudFrontClient({}),
): CdnInvalidator & { destroy(): void } {
  return {
    kind: 'cloudfront',
    async invalidate(paths, reference) {
      await client.send(
        new CreateInvalidationCommand({
          DistributionId: distributionId,
          InvalidationBatch: {
            CallerReference: reference,
            Paths: { Quantity: paths.length, Items: [...paths] },
          },
        }),
      );
    },
    destroy: () => client.destroy(),
  };
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_OUTPUT_ENV } from '../../shared/config';
import { removeTempOutdirs, synthWithNag } from '../support/cdk';

/**
 * OPT-2 "at once" (issue 25): `ingestor --aws tombstone` invalidates a takedown's paths on the stack's
 * one distribution, named by the output CdnDistributionId — the preview's (which serves the API too),
 * else the API's own, none without either. The operator's credentials issue the invalidation; no
 * function issues takedowns (grep: functions/ calls no tombstone), so no role gets
 * cloudfront:CreateInvalidation. Wiring only (no bundling), cdk-nag clean.
 */
type Statement = { Effect: string; Action: string | string[] };
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

function synth(label: string, props: { previewFunction: boolean; mirrorApi: boolean }) {
  return synthWithNag(`cdn-${label}`, `Cdn${label}`, { documentFunctions: false, ...props });
}

function outputs(t: ReturnType<typeof synth>): Record<string, { Value: unknown }> {
  return t.template.toJSON().Outputs as Record<string, { Value: unknown }>;
}

describe('CDK: the takedown invalidation target (OPT-2)', () => {
  let both: ReturnType<typeof synth>;
  let apiAlone: ReturnType<typeof synth>;
  let none: ReturnType<typeof synth>;

  beforeAll(() => {
    both = synth('Both', { previewFunction: true, mirrorApi: true });
    apiAlone = synth('Api', { previewFunction: false, mirrorApi: true });
    none = synth('None', { previewFunction: false, mirrorApi: false });
  }, 120_000);
  afterAll(removeTempOutdirs);

  it('synthesises cdk-nag clean in every variant', () => {
    expect(both.synthError).toBeUndefined();
    expect(apiAlone.synthError).toBeUndefined();
    expect(none.synthError).toBeUndefined();
  });

  it('CdnDistributionId names the one distribution: the preview’s with the API behind it, else the API’s, else none', () => {
    expect(STACK_OUTPUT_ENV.CdnDistributionId).toBe('INGESTOR_CDN_DISTRIBUTION_ID');
    const preview = both.stack.previewDistribution;
    expect(preview).toBeDefined();
    expect(outputs(both).CdnDistributionId?.Value).toEqual(both.stack.resolve(preview?.distributionId));
    const api = apiAlone.stack.mirrorApi?.distribution;
    expect(api).toBeDefined();
    expect(outputs(apiAlone).CdnDistributionId?.Value).toEqual(apiAlone.stack.resolve(api?.distributionId));
    expect(outputs(none).CdnDistributionId).toBeUndefined();
  });

  it('least privilege: no role in the stack may create invalidations (the operator does, with the CLI)', () => {
    for (const t of [both, apiAlone, none]) {
      const actions = Object.values(t.template.findResources('AWS::IAM::Policy'))
        .flatMap((p) => p.Properties.PolicyDocument.Statement as Statement[])
        .flatMap((s) => asArray(s.Action));
      expect(actions.filter((a) => a.toLowerCase().startsWith('cloudfront:'))).toEqual([]);
    }
  });
});

import { describe, expect, it } from 'vitest';
import {
  CONTEXT_KEYS,
  DEFAULT_UPSTASH_SECRET_NAME,
  resolveSettings,
  UPSTASH_URL_PLACEHOLDER,
} from '../../infra/settings';

const noContext = () => undefined;
const contextOf = (values: Record<string, unknown>) => (key: string) => values[key];

describe('resolveSettings', () => {
  it('defaults: placeholder URL, default secret name, 4 syncs, full sync at 03', () => {
    expect(resolveSettings(noContext, {})).toEqual({
      upstashRestUrl: UPSTASH_URL_PLACEHOLDER,
      upstashSecretName: DEFAULT_UPSTASH_SECRET_NAME,
      userAgent: undefined,
      maxConcurrentSyncs: 4,
      fullSyncHour: 3,
      syncRunsInFlight: undefined,
      reservedConcurrency: false,
    });
  });

  it('syncRunsInFlight (issue 28): a mean from context, fractions kept; unset leaves the cap to the slots', () => {
    expect(resolveSettings(contextOf({ [CONTEXT_KEYS.syncRunsInFlight]: '20.9' }), {}).syncRunsInFlight).toBe(
      20.9,
    );
    expect(resolveSettings(contextOf({ [CONTEXT_KEYS.syncRunsInFlight]: 21 }), {}).syncRunsInFlight).toBe(21);
    expect(resolveSettings(contextOf({ [CONTEXT_KEYS.syncRunsInFlight]: '' }), {}).syncRunsInFlight).toBe(
      undefined,
    );
  });

  it('reservedConcurrency: off unless context says true; anything else is refused', () => {
    expect(resolveSettings(contextOf({ reservedConcurrency: 'true' }), {}).reservedConcurrency).toBe(true);
    expect(resolveSettings(contextOf({ reservedConcurrency: true }), {}).reservedConcurrency).toBe(true);
    expect(() => resolveSettings(contextOf({ reservedConcurrency: 'yes' }), {})).toThrow(
      /reservedConcurrency/,
    );
  });

  it('reads the INGESTOR_* variables the functions read', () => {
    const settings = resolveSettings(noContext, {
      INGESTOR_MAX_CONCURRENT_SYNCS: '6',
      INGESTOR_FULL_SYNC_HOUR: '2',
      INGESTOR_USER_AGENT: 'mandari-ingestor/1 (+https://example.org/; ops@example.org)',
    });
    expect(settings).toMatchObject({
      maxConcurrentSyncs: 6,
      fullSyncHour: 2,
      userAgent: 'mandari-ingestor/1 (+https://example.org/; ops@example.org)',
    });
  });

  it('context (-c key=value, strings) wins over the environment', () => {
    const settings = resolveSettings(
      contextOf({
        [CONTEXT_KEYS.maxConcurrentSyncs]: '8',
        [CONTEXT_KEYS.fullSyncHour]: 4,
        [CONTEXT_KEYS.upstashRestUrl]: 'https://eu1-x.upstash.io',
        [CONTEXT_KEYS.upstashSecretName]: 'prod/upstash',
      }),
      { INGESTOR_MAX_CONCURRENT_SYNCS: '6' },
    );
    expect(settings).toMatchObject({
      maxConcurrentSyncs: 8,
      fullSyncHour: 4,
      upstashRestUrl: 'https://eu1-x.upstash.io',
      upstashSecretName: 'prod/upstash',
    });
  });

  it.each([
    [{ [CONTEXT_KEYS.maxConcurrentSyncs]: '0' }, /INGESTOR_MAX_CONCURRENT_SYNCS/],
    [{ [CONTEXT_KEYS.maxConcurrentSyncs]: 'four' }, /INGESTOR_MAX_CONCURRENT_SYNCS/],
    [{ [CONTEXT_KEYS.fullSyncHour]: '24' }, /INGESTOR_FULL_SYNC_HOUR/],
    [{ [CONTEXT_KEYS.syncRunsInFlight]: '0' }, /syncRunsInFlight/],
    [{ [CONTEXT_KEYS.syncRunsInFlight]: 'many' }, /syncRunsInFlight/],
    [{ [CONTEXT_KEYS.upstashRestUrl]: 'http://eu1-x.upstash.io' }, /https URL/],
    [{ [CONTEXT_KEYS.upstashRestUrl]: 'not a url' }, /https URL/],
  ])('refuses %o', (context, message) => {
    expect(() => resolveSettings(contextOf(context), {})).toThrow(message);
  });
});

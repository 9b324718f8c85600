import type { SourceConfig } from '../config';
import type { FetchSource } from './types';

/** What the polite fetcher needs of a source: ID-3 agent, RATE-2 interval, ROB-9 exception. */
export function fetchSourceOf(
  source: Pick<SourceConfig, 'sourceId' | 'userAgent' | 'requestIntervalSeconds' | 'robotsException'>,
): FetchSource {
  return {
    sourceId: source.sourceId,
    requestIntervalSeconds: source.requestIntervalSeconds,
    ...(source.userAgent === undefined ? {} : { userAgent: source.userAgent }),
    ...(source.robotsException === undefined ? {} : { robotsException: source.robotsException }),
  };
}

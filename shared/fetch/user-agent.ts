import { type IngestorEnv, USER_AGENT_CONTROL_CHARACTERS } from '../config';
import { PRODUCT_TOKEN } from '../robots';
import { DEFAULT_CONTACT, DEFAULT_INFO_URL } from './constants';
import { PACKAGE_VERSION } from './version';

/**
 * ID-1: `mandari-ingestor/<package version> (+<info URL>; <contact>)`. B-3: the agent is never
 * disguised or rotated — a per-source override (ID-3) is an operator decision recorded in config.
 */
export function defaultUserAgent(
  options: { version?: string; infoUrl?: string; contact?: string } = {},
): string {
  const version = options.version ?? PACKAGE_VERSION;
  return `${PRODUCT_TOKEN}/${version} (+${options.infoUrl ?? DEFAULT_INFO_URL}; ${options.contact ?? DEFAULT_CONTACT})`;
}

/**
 * OTH-1: other fetches (geo services, streaming providers) announce themselves with this one fixed
 * identity, as the published rules state it word for word — neither the operator's agent nor a
 * per-source override applies to them.
 */
export const OTHER_FETCH_USER_AGENT = `${PRODUCT_TOKEN} (+${DEFAULT_INFO_URL}; ${DEFAULT_CONTACT})`;

/** ID-1: the operator's agent (`INGESTOR_USER_AGENT`, legacy `SCRAPER_USER_AGENT`) or the default. */
export function userAgentFromEnv(e: Pick<IngestorEnv, 'INGESTOR_USER_AGENT' | 'SCRAPER_USER_AGENT'>): string {
  return e.INGESTOR_USER_AGENT ?? e.SCRAPER_USER_AGENT ?? defaultUserAgent();
}

/** A header value must not smuggle a second header or request (CR, LF, NUL and other controls). */
export function isValidUserAgent(value: string): boolean {
  return value.trim() !== '' && !USER_AGENT_CONTROL_CHARACTERS.test(value);
}

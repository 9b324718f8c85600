/**
 * Numbers of onboarding (SPEC ONB). One constant each, exported, so the generated rules page and the
 * tests read the same values as the code.
 */

/** ONB-1: at most this many requests per body — robots.txt, redirect hops and comparison included. */
export const PROBE_MAX_REQUESTS_PER_BODY = 5;

/** ONB-1: pause between probing two bodies. */
export const PROBE_PAUSE_BETWEEN_BODIES_MS = 2_000;

/**
 * ONB-1: the usual addresses of an OParl System, tried (in this order, after the links found on the
 * home page) while the body's request budget lasts. Relative to the home page's origin.
 */
export const PROBE_OPARL_PATHS: readonly string[] = [
  '/oparl/v1/system',
  '/oparl/system',
  '/bi/oparl/1.0/system.asp',
  '/public/oparl/system',
];

/** ONB-1: links found on the home page are tried first, at most this many. */
export const PROBE_MAX_HOME_LINKS = 2;

/** The source id the probe's fetches are made for (logs and metrics; no source exists yet). */
export const PROBE_SOURCE_ID = 'onboarding-probe';

/**
 * robots.txt (RFC 9309) for the mandari ingestor: parser, matcher, fetch-outcome policy, cache
 * state and the per-request verdict. Pure — no I/O, no clock.
 */
export {
  isFresh,
  nextCacheEntry,
  nextRobotsFetchAt,
  ROBOTS_FETCH_POLICY,
  type RobotsAbsentEntry,
  type RobotsCacheEntry,
  type RobotsFetchAction,
  type RobotsFetchOutcome,
  type RobotsFetchPolicyRow,
  type RobotsRulesEntry,
  type RobotsUnreachableEntry,
  revalidationHeaders,
  robotsFetchPolicy,
  toEpochMs,
} from './cache';
export { type RobotsCheckInput, type RobotsCheckResult, robotsCheck } from './check';
export * from './constants';
export { RobotsDisallowedError, RobotsInputError, RobotsUnreachableError } from './errors';
export {
  decidingRule,
  formatRule,
  type GroupSelection,
  indexHtmlDirectoryPattern,
  isAllowed,
  isRobotsTxtTarget,
  matchRobots,
  patternMatches,
  type RobotsMatchResult,
  type RuleMatch,
  type SelectGroupsOptions,
  selectGroups,
} from './match';
export { matchTarget, normalizePattern } from './normalize';
export { type ParseRobotsOptions, parseRobots, userAgentToken } from './parse';
export type { EpochMs, EpochOrDate, ParsedRobots, RobotsGroup, RobotsRule, RobotsRuleType } from './types';
export {
  type AgentEvaluation,
  allowsNothing,
  evaluateAgent,
  exceptionCovers,
  productToken,
  type RequestScope,
  type RobotsException,
  type RobotsVerdict,
  type RobotsVerdictInput,
  robotsTokens,
  robotsVerdict,
  type TokenCheck,
  type TokenRole,
  verdictError,
} from './verdict';

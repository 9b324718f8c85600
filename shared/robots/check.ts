/**
 * `ingestor robots check`: one robots.txt answer + agent + URL → verdict, without I/O. The CLI
 * reads the file and prints the result; this function holds all the logic so it is testable.
 */
import {
  nextCacheEntry,
  nextRobotsFetchAt,
  type RobotsCacheEntry,
  type RobotsFetchAction,
  type RobotsFetchOutcome,
  robotsFetchPolicy,
} from './cache';
import { RobotsInputError } from './errors';
import type { EpochMs, EpochOrDate } from './types';
import {
  productToken,
  type RequestScope,
  type RobotsException,
  type RobotsVerdict,
  robotsVerdict,
} from './verdict';

export interface RobotsCheckInput {
  /** The robots.txt body (file contents); null when there is none (e.g. with a 404 status). */
  robotsText: string | Uint8Array | null;
  /** HTTP status of the robots.txt fetch (`--status`), default 200. */
  status?: number;
  /** The User-Agent header as sent (`--agent`). */
  agent: string;
  url: string;
  /** The cache entry held before this fetch, e.g. a last good copy (ROB-7). */
  previous?: RobotsCacheEntry | null;
  now: EpochOrDate;
  scope?: RequestScope;
  exception?: RobotsException | null;
}

export interface RobotsCheckResult extends RobotsVerdict {
  url: string;
  agent: string;
  /** ROB-3: the token derived from `agent` (checked together with mandari-ingestor). */
  productToken: string;
  status: number;
  /** What the status means for robots.txt (ROB-5/6/7) and the rule behind it. */
  fetchAction: RobotsFetchAction;
  fetchRule: string;
  /** Kind of the resulting cache entry and when robots.txt would be fetched again. */
  entryKind: RobotsCacheEntry['kind'];
  nextFetchAt: EpochMs;
  /** Shape of the evaluated robots.txt, when one was evaluated. */
  robots?: { groups: number; evaluatedBytes: number; truncated: boolean; ignoredLines: number };
}

/**
 * Evaluates `url` for `agent` as if robots.txt had just been fetched with `status` and
 * `robotsText`: 200 → the rules decide; 404 → allowed (ROB-6); 503 without `previous` →
 * deferred (ROB-7). Throws `RobotsInputError` for a status outside 100–599 or an invalid URL.
 */
export function robotsCheck(input: RobotsCheckInput): RobotsCheckResult {
  const status = input.status ?? 200;
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RobotsInputError(`--status must be an HTTP status code (100-599), got ${String(input.status)}`);
  }
  const outcome: RobotsFetchOutcome = { kind: 'response', status, body: input.robotsText ?? '' };
  const policy = robotsFetchPolicy(outcome);
  const entry = nextCacheEntry(input.previous, outcome, input.now);
  const verdict = robotsVerdict({
    entry,
    userAgent: input.agent,
    url: input.url,
    now: input.now,
    scope: input.scope,
    exception: input.exception,
  });
  const robots =
    entry.kind === 'rules' ? entry.robots : entry.kind === 'unreachable' ? entry.lastGood?.robots : undefined;
  const result: RobotsCheckResult = {
    ...verdict,
    url: input.url,
    agent: input.agent,
    productToken: productToken(input.agent),
    status,
    fetchAction: policy.action,
    fetchRule: policy.rule,
    entryKind: entry.kind,
    nextFetchAt: nextRobotsFetchAt(entry),
  };
  if (robots) {
    result.robots = {
      groups: robots.groups.length,
      evaluatedBytes: robots.evaluatedBytes,
      truncated: robots.truncated,
      ignoredLines: robots.ignoredLines,
    };
  }
  return result;
}

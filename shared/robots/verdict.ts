/**
 * The robots.txt decision for one request: `(cache entry, agent, url, scope, exception, now) →
 * verdict + reason`. Pure; the polite fetcher loads/refreshes the cache entry (cache.ts) and acts
 * on the verdict (ROB-8: a disallowed request is not made; ROB-7: a deferred one is not made yet).
 */
import { isFresh, type RobotsCacheEntry, toEpochMs } from './cache';
import { CRAWL_DELAY_CAP_SECONDS, LEGACY_TOKENS, PRODUCT_TOKEN } from './constants';
import { RobotsDisallowedError, RobotsUnreachableError } from './errors';
import { isRobotsTxtTarget, matchRobots } from './match';
import { matchTarget } from './normalize';
import type { EpochMs, EpochOrDate, ParsedRobots } from './types';

export {
  isFresh,
  nextCacheEntry,
  nextRobotsFetchAt,
  ROBOTS_FETCH_POLICY,
  type RobotsCacheEntry,
  type RobotsFetchOutcome,
  robotsFetchPolicy,
} from './cache';

/** What kind of request is being judged; ROB-9 exceptions are granted per scope. */
export type RequestScope = 'api' | 'files' | 'html';

/**
 * ROB-9: an approved exception from the source's config. Only a non-empty `approvalNote` makes it
 * valid; `both` covers API and files. HTML pages (scraper sources) are never covered: the rule
 * grants exceptions "for the API, files or both".
 */
export interface RobotsException {
  scope: 'api' | 'files' | 'both';
  approvalNote: string;
}

export type TokenRole = 'agent' | 'product' | 'legacy';

/** The evaluation of one token (ROB-3). */
export interface TokenCheck {
  token: string;
  /** `agent`: the token of the User-Agent sent; `product`: mandari-ingestor; `legacy`: an old token. */
  role: TokenRole;
  allowed: boolean;
  group: string | null;
  rule: string | null;
  reason: string;
}

export interface RobotsVerdict {
  verdict: 'allowed' | 'disallowed' | 'deferred';
  /** Token of the group that decided, `*`, or null (no group applied / no rules known). */
  group: string | null;
  /** The deciding rule, e.g. `Disallow: /private`, or null. */
  rule: string | null;
  /** ROB-10: largest Crawl-delay of the checked groups, capped at 60 s; absent when none. */
  crawlDelaySeconds?: number;
  /** For `deferred`: do not try before this (epoch ms). */
  retryAt?: EpochMs;
  reason: string;
  /** ROB-9: true when an approved exception turned a non-allowed verdict into `allowed`. */
  exceptionUsed: boolean;
  /** Per-token evaluations that led to the verdict (empty when no rules were evaluated). */
  checks: TokenCheck[];
}

/**
 * ROB-3: the product token of a User-Agent header — its leading token before `/` or whitespace:
 * `mandari-ingestor/0.1.0 (+https://mandari.de/ingestor/; …)` → `mandari-ingestor`,
 * `Mozilla/5.0 (compatible; StadtBot/2.0)` → `Mozilla`.
 */
export function productToken(userAgent: string): string {
  return /^[^\s/]*/.exec(userAgent.trim())?.[0] ?? '';
}

/**
 * ROB-3: the tokens checked for a User-Agent, in order: its own token, always `mandari-ingestor`,
 * then the legacy tokens (which count only where a group names them).
 */
export function robotsTokens(userAgent: string): { token: string; role: TokenRole }[] {
  const tokens: { token: string; role: TokenRole }[] = [];
  const seen = new Set<string>();
  const add = (token: string, role: TokenRole) => {
    const key = token.toLowerCase();
    if (key === '' || seen.has(key)) return;
    seen.add(key);
    tokens.push({ token, role });
  };
  add(productToken(userAgent), 'agent');
  add(PRODUCT_TOKEN, 'product');
  for (const legacy of LEGACY_TOKENS) add(legacy, 'legacy');
  return tokens;
}

export interface AgentEvaluation {
  allowed: boolean;
  group: string | null;
  rule: string | null;
  reason: string;
  crawlDelaySeconds?: number;
  checks: TokenCheck[];
}

/**
 * ROB-3 on parsed rules: the agent's token and `mandari-ingestor` (each with `*` fallback, ROB-1)
 * must both allow; legacy-token groups are checked only where they exist and can only forbid. The
 * first forbidding check decides; when all allow, the agent's own check is reported.
 */
export function evaluateAgent(robots: ParsedRobots, userAgent: string, url: string | URL): AgentEvaluation {
  const checks: TokenCheck[] = [];
  const delays: number[] = [];
  for (const { token, role } of robotsTokens(userAgent)) {
    const legacy = role === 'legacy';
    const result = matchRobots(robots, token, url, { fallbackToGlobal: !legacy });
    // A legacy token without its own group has no say (it never falls back to `*`).
    if (legacy && result.group === null) continue;
    if (result.crawlDelaySeconds !== undefined) delays.push(result.crawlDelaySeconds);
    checks.push({
      token,
      role,
      allowed: result.allowed,
      group: result.group,
      rule: result.ruleText,
      reason: result.reason,
    });
  }
  const deciding = checks.find((check) => !check.allowed) ?? checks[0];
  const evaluation: AgentEvaluation = {
    allowed: deciding?.allowed ?? true,
    group: deciding?.group ?? null,
    rule: deciding?.rule ?? null,
    reason: deciding ? `ROB-3 (${deciding.token}): ${deciding.reason}` : 'ROB-3: no token to check',
    checks,
  };
  if (delays.length > 0)
    evaluation.crawlDelaySeconds = Math.min(CRAWL_DELAY_CAP_SECONDS, Math.max(...delays));
  return evaluation;
}

export interface RobotsVerdictInput {
  /** The cache entry for the URL's hostname and this agent; null/undefined when none is loaded. */
  entry: RobotsCacheEntry | null | undefined;
  /** The User-Agent header actually sent (ID-1, or a per-source override, ID-3). */
  userAgent: string;
  url: string | URL;
  now: EpochOrDate;
  scope?: RequestScope;
  exception?: RobotsException | null;
}

/** ROB-9: does a valid (non-empty note) exception cover this request scope? */
export function exceptionCovers(
  exception: RobotsException | null | undefined,
  scope: RequestScope | undefined,
): boolean {
  if (!exception || exception.approvalNote.trim() === '' || scope === undefined || scope === 'html') {
    return false;
  }
  return exception.scope === 'both' || exception.scope === scope;
}

function iso(ms: EpochMs): string {
  return new Date(ms).toISOString();
}

function deferred(reason: string, retryAt: EpochMs): RobotsVerdict {
  return { verdict: 'deferred', group: null, rule: null, retryAt, reason, exceptionUsed: false, checks: [] };
}

function fromEvaluation(evaluation: AgentEvaluation, reasonPrefix = ''): RobotsVerdict {
  const verdict: RobotsVerdict = {
    verdict: evaluation.allowed ? 'allowed' : 'disallowed',
    group: evaluation.group,
    rule: evaluation.rule,
    reason: reasonPrefix + evaluation.reason,
    exceptionUsed: false,
    checks: evaluation.checks,
  };
  if (evaluation.crawlDelaySeconds !== undefined) verdict.crawlDelaySeconds = evaluation.crawlDelaySeconds;
  return verdict;
}

/** The verdict from robots.txt alone (no exception). */
function robotsOnlyVerdict(
  entry: RobotsCacheEntry | null | undefined,
  userAgent: string,
  url: string | URL,
  nowMs: EpochMs,
): RobotsVerdict {
  if (!entry) {
    return deferred('ROB-5: no robots.txt state for this host and agent yet: load it first', nowMs);
  }
  if (!isFresh(entry, nowMs)) {
    // OPT-1: a changed robots.txt must take effect within 24 h, so a stale copy never decides.
    return deferred('ROB-5: robots.txt state is due for refresh: load it first', nowMs);
  }
  switch (entry.kind) {
    case 'absent':
      return {
        verdict: 'allowed',
        group: null,
        rule: null,
        reason: `ROB-6: robots.txt answered HTTP ${entry.status}: no robots.txt, everything allowed`,
        exceptionUsed: false,
        checks: [],
      };
    case 'rules':
      return fromEvaluation(evaluateAgent(entry.robots, userAgent, url));
    case 'unreachable':
      if (entry.lastGood) {
        return fromEvaluation(
          evaluateAgent(entry.lastGood.robots, userAgent, url),
          `ROB-7: robots.txt unreachable since ${iso(entry.since)} (${entry.cause}); ` +
            `the copy from ${iso(entry.lastGood.fetchedAt)} stays in force; `,
        );
      }
      return deferred(
        `ROB-7: robots.txt unreachable (${entry.cause}) and no previous copy: deferred, ` +
          `robots.txt retried no earlier than ${iso(entry.retryAt)}`,
        entry.retryAt,
      );
  }
}

/**
 * May this request be made? (ROB-1 … ROB-10.)
 * - `/robots.txt` itself: always allowed (ROB-4).
 * - No or stale cache entry: `deferred` until robots.txt is loaded (ROB-5); `retryAt` = now.
 * - Absent (4xx): allowed (ROB-6). Unreachable: the last good copy decides, else `deferred`
 *   with `retryAt` ≥ 15 min later (ROB-7) — never `allowed`.
 * - Rules: ROB-3 tokens, longest match (ROB-2); Crawl-delay exposed, capped (ROB-10).
 * - A valid exception for the request's scope turns `disallowed`/`deferred` into `allowed` and says
 *   so (`exceptionUsed`, reason); without an approval note robots.txt applies (ROB-9).
 * Throws `RobotsInputError` for a URL that is not an absolute http(s) URL or a path.
 */
export function robotsVerdict(input: RobotsVerdictInput): RobotsVerdict {
  const nowMs = toEpochMs(input.now);
  const target = matchTarget(input.url);
  if (isRobotsTxtTarget(target)) {
    return {
      verdict: 'allowed',
      group: null,
      rule: null,
      reason: 'ROB-4: /robots.txt itself is always allowed',
      exceptionUsed: false,
      checks: [],
    };
  }
  const verdict = robotsOnlyVerdict(input.entry, input.userAgent, input.url, nowMs);
  if (verdict.verdict === 'allowed') return verdict;

  if (exceptionCovers(input.exception, input.scope)) {
    const { retryAt: _ignored, ...rest } = verdict;
    return {
      ...rest,
      verdict: 'allowed',
      exceptionUsed: true,
      reason:
        `ROB-9: approved exception for ${input.exception?.scope} (${input.exception?.approvalNote.trim()}) ` +
        `used; robots.txt alone: ${verdict.verdict} — ${verdict.reason}`,
    };
  }
  if (input.exception && input.exception.approvalNote.trim() === '') {
    return { ...verdict, reason: `${verdict.reason} (ROB-9: exception without approval note ignored)` };
  }
  return verdict;
}

/**
 * ROB-8: true when robots.txt allows none of the source's requests on this server, judged on
 * `sampleUrls` — the source's entry points there (system URL, body list, a file URL …); `['/']`
 * when empty. `/robots.txt` samples do not count (always allowed, ROB-4). The sync then tries the
 * source again no earlier than `ROBOTS_ALLOWS_NOTHING_RETRY_MS` (24 h) later.
 */
export function allowsNothing(
  robots: ParsedRobots,
  userAgent: string,
  sampleUrls: readonly (string | URL)[] = [],
): boolean {
  const samples = (sampleUrls.length > 0 ? sampleUrls : ['/']).filter(
    (url) => !isRobotsTxtTarget(matchTarget(url)),
  );
  return samples.length > 0 && samples.every((url) => !evaluateAgent(robots, userAgent, url).allowed);
}

/**
 * The typed error for a verdict that forbids the request now, for callers that throw: ROB-8
 * `ROBOTS_DISALLOWED` or ROB-7 `ROBOTS_UNREACHABLE` (retryable, not before `retryAt`); null
 * when the request may be made.
 */
export function verdictError(
  verdict: RobotsVerdict,
  url: string | URL,
): RobotsDisallowedError | RobotsUnreachableError | null {
  const href = typeof url === 'string' ? url : url.href;
  switch (verdict.verdict) {
    case 'allowed':
      return null;
    case 'disallowed':
      return new RobotsDisallowedError(href, verdict.group, verdict.rule, verdict.reason);
    case 'deferred':
      return new RobotsUnreachableError(href, verdict.retryAt ?? 0, verdict.reason);
  }
}

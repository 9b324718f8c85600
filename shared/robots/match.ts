/**
 * robots.txt matcher (RFC 9309 §2.2.2–2.2.3), pure: which groups apply to a token (ROB-1) and
 * whether a URL is allowed by them (ROB-2). Patterns are never turned into RegExps: user input in
 * a RegExp invites catastrophic backtracking; the greedy segment matcher below is linear-ish.
 */
import { ROBOTS_TXT_PATH } from './constants';
import { matchTarget } from './normalize';
import type { ParsedRobots, RobotsGroup, RobotsRule } from './types';

export interface GroupSelection {
  /** The token whose groups apply (lower-cased), `*`, or null when no group applies. */
  token: string | null;
  /** All groups for that token, in file order; their rules count as one merged group. */
  groups: RobotsGroup[];
}

export interface SelectGroupsOptions {
  /**
   * Fall back to the `*` groups when no group names the token (ROB-1). Off for the legacy tokens
   * (ROB-3), which count only where a group names them explicitly.
   */
  fallbackToGlobal?: boolean;
}

/**
 * ROB-1: the groups naming `agentToken` (case-insensitively; several such groups merge); if none,
 * the `*` groups; if none, nothing. A group for the token applies instead of `*`, even when it has
 * no rules at all.
 */
export function selectGroups(
  robots: ParsedRobots,
  agentToken: string,
  options: SelectGroupsOptions = {},
): GroupSelection {
  const token = agentToken.toLowerCase();
  if (token !== '' && token !== '*') {
    const own = robots.groups.filter((group) => group.tokens.includes(token));
    if (own.length > 0) return { token, groups: own };
  }
  if (options.fallbackToGlobal ?? true) {
    const global = robots.groups.filter((group) => group.tokens.includes('*'));
    if (global.length > 0) return { token: '*', groups: global };
  }
  return { token: null, groups: [] };
}

/**
 * Whether `pattern` matches `target` from its start (RFC 9309 §2.2.3). Both are percent-normalised
 * already: in `pattern`, `*` matches any sequence and a final `$` anchors the end; in `target` such
 * characters appear only as `%2A` / `%24`. Greedy leftmost search of the literal segments between
 * the `*`s is exact for this language, so each segment is searched once (no backtracking).
 */
export function patternMatches(target: string, pattern: string): boolean {
  const anchored = pattern.endsWith('$');
  const body = anchored ? pattern.slice(0, -1) : pattern;
  const segments = body.split('*');
  const first = segments[0] ?? '';
  if (!target.startsWith(first)) return false;
  if (segments.length === 1) return !anchored || target.length === first.length;

  let position = first.length;
  const lastIndex = segments.length - 1;
  for (let i = 1; i < lastIndex; i++) {
    const segment = segments[i] ?? '';
    if (segment === '') continue;
    const found = target.indexOf(segment, position);
    if (found < 0) return false;
    position = found + segment.length;
  }
  const last = segments[lastIndex] ?? '';
  if (!anchored) return last === '' || target.indexOf(last, position) >= 0;
  // Anchored: the last segment must end the target and must not overlap what was matched before.
  return target.length - last.length >= position && target.endsWith(last);
}

/**
 * ROB-2a (Google): `Allow: /dir/index.html` (any last segment starting with `index.htm`) also
 * allows `/dir/` exactly, i.e. the pattern `/dir/$`. Returns that pattern, or null.
 */
export function indexHtmlDirectoryPattern(pattern: string): string | null {
  const slash = pattern.lastIndexOf('/');
  if (slash < 0 || !pattern.startsWith('/index.htm', slash)) return null;
  return pattern.slice(0, slash + 1) + '$';
}

export interface RuleMatch {
  rule: RobotsRule;
  /** Length of the matching (normalised) pattern: longest wins (ROB-2). */
  priority: number;
  /** The match came from the `index.html` directory rule (ROB-2a), not from the pattern itself. */
  viaIndexHtml: boolean;
}

function isBetter(candidate: RuleMatch, best: RuleMatch | null): boolean {
  if (best === null) return true;
  if (candidate.priority !== best.priority) return candidate.priority > best.priority;
  // Equal length: Allow wins (RFC 9309 §2.2.2); among equals the first in the file is reported.
  return candidate.rule.type === 'allow' && best.rule.type === 'disallow';
}

/**
 * ROB-2: the deciding rule for a normalised target — the longest matching pattern, Allow on a tie.
 * An empty pattern (`Disallow:`) matches nothing. Null when no rule matches (then: allowed).
 */
export function decidingRule(rules: readonly RobotsRule[], target: string): RuleMatch | null {
  let best: RuleMatch | null = null;
  for (const rule of rules) {
    if (rule.pattern === '') continue;
    if (patternMatches(target, rule.pattern)) {
      const candidate = { rule, priority: rule.pattern.length, viaIndexHtml: false };
      if (isBetter(candidate, best)) best = candidate;
    } else if (rule.type === 'allow') {
      const directory = indexHtmlDirectoryPattern(rule.pattern);
      if (directory !== null && patternMatches(target, directory)) {
        const candidate = { rule, priority: directory.length, viaIndexHtml: true };
        if (isBetter(candidate, best)) best = candidate;
      }
    }
  }
  return best;
}

/** A rule as shown in verdicts and logs, e.g. `Disallow: /private`. */
export function formatRule(rule: RobotsRule): string {
  return `${rule.type === 'allow' ? 'Allow' : 'Disallow'}: ${rule.value}`;
}

/** ROB-4: the target (normalised path + query) addresses `/robots.txt` itself. */
export function isRobotsTxtTarget(target: string): boolean {
  const queryStart = target.indexOf('?');
  return (queryStart < 0 ? target : target.slice(0, queryStart)) === ROBOTS_TXT_PATH;
}

export interface RobotsMatchResult {
  allowed: boolean;
  /** Token of the applicable groups (lower-cased), `*`, or null when no group applies. */
  group: string | null;
  /** The deciding rule, or null (no group, no matching rule, or `/robots.txt`). */
  rule: RobotsRule | null;
  /** `rule` formatted for display, e.g. `Disallow: /private`. */
  ruleText: string | null;
  /** Largest `Crawl-delay` of the applicable groups, seconds, uncapped (ROB-10). */
  crawlDelaySeconds?: number;
  /** The normalised path + query that was matched. */
  target: string;
  reason: string;
}

/**
 * May `agentToken` fetch `url` under `robots`? (ROB-1, ROB-2, ROB-4.) `agentToken` is compared
 * whole and case-insensitively with the tokens of the groups; derive it from a User-Agent header
 * with `productToken` (verdict.ts) first. Throws `RobotsInputError` for a URL that is neither an
 * absolute http(s) URL nor a path.
 */
export function matchRobots(
  robots: ParsedRobots,
  agentToken: string,
  url: string | URL,
  options: SelectGroupsOptions = {},
): RobotsMatchResult {
  const target = matchTarget(url);
  const selection = selectGroups(robots, agentToken, options);
  const delays = selection.groups
    .map((group) => group.crawlDelaySeconds)
    .filter((seconds): seconds is number => seconds !== undefined);
  const crawlDelay = delays.length > 0 ? { crawlDelaySeconds: Math.max(...delays) } : {};

  if (isRobotsTxtTarget(target)) {
    return {
      allowed: true,
      group: selection.token,
      rule: null,
      ruleText: null,
      ...crawlDelay,
      target,
      reason: 'ROB-4: /robots.txt itself is always allowed',
    };
  }
  if (selection.token === null) {
    return {
      allowed: true,
      group: null,
      rule: null,
      ruleText: null,
      target,
      reason: `ROB-1: no group for ${agentToken || '(empty token)'}${options.fallbackToGlobal === false ? '' : ' and no * group'}: everything allowed`,
    };
  }
  const rules = selection.groups.flatMap((group) => group.rules);
  const match = decidingRule(rules, target);
  if (match === null) {
    return {
      allowed: true,
      group: selection.token,
      rule: null,
      ruleText: null,
      ...crawlDelay,
      target,
      reason: `ROB-2: no rule of the ${selection.token} group matches ${target}`,
    };
  }
  const ruleText = formatRule(match.rule);
  return {
    allowed: match.rule.type === 'allow',
    group: selection.token,
    rule: match.rule,
    ruleText,
    ...crawlDelay,
    target,
    reason: match.viaIndexHtml
      ? `ROB-2a: "${ruleText}" (line ${match.rule.line}) also allows its directory ${target}`
      : `ROB-2: longest match "${ruleText}" (line ${match.rule.line}) in the ${selection.token} group`,
  };
}

/** Boolean shorthand of {@link matchRobots}. */
export function isAllowed(robots: ParsedRobots, agentToken: string, url: string | URL): boolean {
  return matchRobots(robots, agentToken, url).allowed;
}

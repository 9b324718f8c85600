/**
 * Plain data shapes of the robots.txt module. Everything here is JSON-serialisable, so a parsed
 * robots.txt and a cache entry can be stored (DynamoDB, Redis) and read back unchanged.
 */

/** Milliseconds since the Unix epoch. Time is always passed in, never read from the clock. */
export type EpochMs = number;

/**
 * A point in time as callers hold it: a Date or epoch ms. Not the schedule's `Instant` (a luxon DateTime
 * or an ISO string read in Europe/Berlin) — one word, one meaning.
 */
export type EpochOrDate = Date | EpochMs;

export type RobotsRuleType = 'allow' | 'disallow';

export interface RobotsRule {
  type: RobotsRuleType;
  /**
   * The pattern as used for matching: percent-normalised (RFC 9309 §2.2.2), ASCII only. `*` is
   * the wildcard; a final `$` anchors the end (§2.2.3). Its length is the rule's priority.
   */
  pattern: string;
  /** The value as written in the file (comment and surrounding whitespace removed), for display. */
  value: string;
  /** 1-based line number in the file (CRLF counts as one line break). */
  line: number;
}

export interface RobotsGroup {
  /** The `User-agent` values as written, for display. */
  userAgents: string[];
  /**
   * Tokens this group applies to, lower-cased: `*` for the global group, otherwise the leading
   * `[a-zA-Z_-]` run of each value (ROB-2a, like Google's parser: `mandari-ingestor/1.2` →
   * `mandari-ingestor`). Values that yield no token (e.g. `*bot`) select nothing.
   */
  tokens: string[];
  rules: RobotsRule[];
  /** ROB-10: the largest `Crawl-delay` of this group in seconds, uncapped; absent when none. */
  crawlDelaySeconds?: number;
}

export interface ParsedRobots {
  /** Groups in file order, not merged (merging happens when a token selects its groups). */
  groups: RobotsGroup[];
  /** Bytes actually evaluated (after the 500 KiB cut, BOM included). */
  evaluatedBytes: number;
  /** True when the input was longer than the limit and its tail was ignored (ROB-5). */
  truncated: boolean;
  /** Non-empty lines that were not understood or not applicable (junk, HTML, rules before any group). */
  ignoredLines: number;
}

/**
 * robots.txt parser (RFC 9309 §2.1–2.2), pure: text or bytes in, plain groups out. No matching
 * happens here (see `match.ts`), and nothing is fetched.
 *
 * Where RFC 9309 leaves room we parse like Google's reference parser (SPEC ROB-2a,
 * conformance/README.md): key typos and key prefixes, a missing colon, `* text` as the global
 * group, user-agent values cut to their `[a-zA-Z_-]` prefix, a partial BOM skipped. Unlike Google
 * we do not cut long lines; instead only the first 500 KiB of the file are read (ROB-5).
 */
import { ROBOTS_MAX_BYTES } from './constants';
import { binaryToDisplay, bytesToBinary, percentNormalize, toBytes } from './normalize';
import type { ParsedRobots, RobotsGroup, RobotsRuleType } from './types';

export interface ParseRobotsOptions {
  /** Bytes evaluated at most (ROB-5); the rest of the file is ignored. */
  maxBytes?: number;
}

type KeyKind = 'user-agent' | RobotsRuleType | 'sitemap' | 'crawl-delay' | 'unknown';

const UTF8_BOM = [0xef, 0xbb, 0xbf] as const;
const LF = 0x0a;
const CR = 0x0d;

// Typos Google accepts (robots.cc, kAllowFrequentTypos); keys also count by prefix there.
const USER_AGENT_KEYS = ['user-agent', 'useragent', 'user agent'];
const DISALLOW_KEYS = ['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'];
const SITEMAP_KEYS = ['sitemap', 'site-map'];
const CRAWL_DELAY_KEYS = ['crawl-delay', 'crawldelay', 'crawl delay'];

function classifyKey(key: string): KeyKind {
  const lower = key.toLowerCase();
  // Order as in Google's parser: `User-agents:` is a user-agent line, `Allowance:` an allow line.
  if (USER_AGENT_KEYS.some((k) => lower.startsWith(k))) return 'user-agent';
  if (lower.startsWith('allow')) return 'allow';
  if (DISALLOW_KEYS.some((k) => lower.startsWith(k))) return 'disallow';
  if (SITEMAP_KEYS.some((k) => lower.startsWith(k))) return 'sitemap';
  if (CRAWL_DELAY_KEYS.includes(lower)) return 'crawl-delay';
  return 'unknown';
}

/** ASCII whitespace as C's isspace(): the only characters trimmed (never U+FEFF, ROB-2a). */
function isAsciiSpace(code: number): boolean {
  return code === 0x20 || (code >= 0x09 && code <= 0x0d);
}

function trimAscii(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiSpace(s.charCodeAt(start))) start++;
  while (end > start && isAsciiSpace(s.charCodeAt(end - 1))) end--;
  return s.slice(start, end);
}

/**
 * Splits one line into key and value (RFC 9309 §2.2: `key: value`). A comment (`#`) ends the
 * line anywhere. Like Google, a missing colon is accepted when the line is exactly two
 * whitespace-separated words (`disallow /x`); anything else without a colon is not a rule.
 */
function splitKeyValue(rawLine: string): { key: string; value: string } | null {
  let line = rawLine;
  // A NUL ends the line: Google's parser works on C strings, so it never sees what follows.
  const nul = line.indexOf('\0');
  if (nul >= 0) line = line.slice(0, nul);
  const hash = line.indexOf('#');
  if (hash >= 0) line = line.slice(0, hash);
  line = trimAscii(line);
  if (line === '') return null;

  let key: string;
  let value: string;
  const colon = line.indexOf(':');
  if (colon >= 0) {
    key = line.slice(0, colon);
    value = line.slice(colon + 1);
  } else {
    const space = line.search(/[ \t]/);
    if (space < 0) return null;
    let valueStart = space;
    while (valueStart < line.length && (line[valueStart] === ' ' || line[valueStart] === '\t')) valueStart++;
    value = line.slice(valueStart);
    if (/[ \t]/.test(value)) return null;
    key = line.slice(0, space);
  }
  key = trimAscii(key);
  if (key === '') return null;
  return { key, value: trimAscii(value) };
}

/**
 * The token a `User-agent` value selects (ROB-1, ROB-2a): `*` for the global group — also when
 * followed by whitespace and more text (`* text`) — otherwise the leading `[a-zA-Z_-]` run,
 * lower-cased, so `Mandari-Ingestor/2.0 (+https://…)` selects `mandari-ingestor`. Returns null
 * when no token remains (`*bot`, `1bot`): such a line selects nothing.
 */
export function userAgentToken(value: string): string | null {
  if (value.startsWith('*') && (value.length === 1 || isAsciiSpace(value.charCodeAt(1)))) return '*';
  const match = /^[A-Za-z_-]+/.exec(value);
  return match ? match[0].toLowerCase() : null;
}

const CRAWL_DELAY_VALUE = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * The evaluated part of the input as one binary string (one char per byte): at most `maxBytes`,
 * a trailing line cut by the limit dropped — half a rule is not the rule the operator wrote —
 * and a leading full or partial UTF-8 BOM (EF BB BF) skipped, as Google does.
 */
function evaluatedText(input: string | Uint8Array, maxBytes: number) {
  // For text, encoding more than maxBytes + 1 characters cannot change the result.
  const bytes = toBytes(typeof input === 'string' ? input.slice(0, maxBytes + 1) : input);
  let end = bytes.length;
  const truncated = bytes.length > maxBytes;
  if (truncated) {
    end = maxBytes;
    const next = bytes[maxBytes];
    if (next !== LF && next !== CR) {
      while (end > 0 && bytes[end - 1] !== LF && bytes[end - 1] !== CR) end--;
    }
  }
  let start = 0;
  while (start < UTF8_BOM.length && start < end && bytes[start] === UTF8_BOM[start]) start++;
  return {
    binary: bytesToBinary(bytes, start, end),
    evaluatedBytes: Math.min(bytes.length, maxBytes),
    truncated,
  };
}

/**
 * Parses a robots.txt body. Never throws: junk, binary data or an HTML page simply yield lines
 * that are ignored. Rules before the first `User-agent` line belong to no group and are ignored
 * (RFC 9309 §2.1). Consecutive `User-agent` lines — with blank, unknown, Sitemap or Crawl-delay
 * lines between them — form one group; the next `User-agent` after a rule starts a new one.
 */
export function parseRobots(input: string | Uint8Array, options: ParseRobotsOptions = {}): ParsedRobots {
  const maxBytes = options.maxBytes ?? ROBOTS_MAX_BYTES;
  const { binary, evaluatedBytes, truncated } = evaluatedText(input, maxBytes);

  const groups: RobotsGroup[] = [];
  let current: RobotsGroup | null = null;
  // True once the current group has a rule: the next User-agent line then opens a new group.
  let currentHasRules = false;
  let ignoredLines = 0;

  // CR, LF and CRLF all end a line (RFC 9309 §2.2); "\n\r" is two line ends.
  const lines = binary.split(/\r\n|\r|\n/);
  for (let index = 0; index < lines.length; index++) {
    const rawLine = lines[index] ?? '';
    const lineNumber = index + 1;
    const parsed = splitKeyValue(rawLine);
    if (parsed === null) {
      if (trimAscii(rawLine) !== '' && !trimAscii(rawLine).startsWith('#')) ignoredLines++;
      continue;
    }
    const kind = classifyKey(parsed.key);
    switch (kind) {
      case 'user-agent': {
        if (current === null || currentHasRules) {
          current = { userAgents: [], tokens: [], rules: [] };
          groups.push(current);
          currentHasRules = false;
        }
        current.userAgents.push(binaryToDisplay(parsed.value));
        const token = userAgentToken(parsed.value);
        if (token !== null && !current.tokens.includes(token)) current.tokens.push(token);
        break;
      }
      case 'allow':
      case 'disallow': {
        if (current === null) {
          ignoredLines++;
          break;
        }
        current.rules.push({
          type: kind,
          pattern: percentNormalize(parsed.value, 'pattern'),
          value: binaryToDisplay(parsed.value),
          line: lineNumber,
        });
        currentHasRules = true;
        break;
      }
      case 'crawl-delay': {
        const seconds = CRAWL_DELAY_VALUE.test(parsed.value) ? Number(parsed.value) : Number.NaN;
        if (current === null || !Number.isFinite(seconds)) {
          ignoredLines++;
          break;
        }
        // Several Crawl-delay lines in one group: the slowest wins (ROB-10 only ever slows us).
        current.crawlDelaySeconds = Math.max(current.crawlDelaySeconds ?? 0, seconds);
        break;
      }
      case 'sitemap':
        // ROB-10: Sitemap is ignored; like any non-rule line it does not end a group.
        break;
      case 'unknown':
        ignoredLines++;
        break;
    }
  }
  return { groups, evaluatedBytes, truncated, ignoredLines };
}

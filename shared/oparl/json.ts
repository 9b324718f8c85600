import { IngestorError } from '../errors';
import { MAX_PAGE_JSON_DEPTH, MAX_PAGE_JSON_OBJECTS } from './constants';

/**
 * Lenient JSON for OParl pages. Some vendors (CC e-gov) put raw control characters (tabs, line breaks)
 * inside JSON strings, which `JSON.parse` rejects. We escape exactly those, only inside string literals,
 * and parse again — never guessing anything else, so a truly broken page still fails loudly.
 */
export function parseOParlJson(text: string): unknown {
  return checkPageShape(parseLeniently(text));
}

function parseLeniently(text: string): unknown {
  const trimmed = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(trimmed);
  } catch (first) {
    const repaired = escapeControlCharactersInStrings(trimmed);
    if (repaired === trimmed) throw invalid(first);
    try {
      return JSON.parse(repaired);
    } catch (second) {
      throw invalid(second);
    }
  }
}

/**
 * Refuses a page deeper than `MAX_PAGE_JSON_DEPTH` (`OPARL_TOO_DEEP`) or holding more than
 * `MAX_PAGE_JSON_OBJECTS` objects (`OPARL_TOO_MANY_OBJECTS`), before any recursive walk sees it. The
 * check itself keeps its own stack, so no input can overflow it.
 */
function checkPageShape(value: unknown): unknown {
  const pending: [unknown, number][] = [[value, 1]];
  let objects = 0;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [node, depth] = next;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > MAX_PAGE_JSON_DEPTH) {
      throw new IngestorError('OPARL_TOO_DEEP', `JSON nested deeper than ${MAX_PAGE_JSON_DEPTH} levels`);
    }
    const children = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node) && ++objects > MAX_PAGE_JSON_OBJECTS) {
      throw new IngestorError(
        'OPARL_TOO_MANY_OBJECTS',
        `more than ${MAX_PAGE_JSON_OBJECTS} JSON objects in one page`,
      );
    }
    for (const child of children) {
      if (typeof child === 'object' && child !== null) pending.push([child, depth + 1]);
    }
  }
  return value;
}

function invalid(cause: unknown): IngestorError {
  return new IngestorError('OPARL_INVALID_JSON', `invalid JSON: ${(cause as Error).message}`, { cause });
}

export function escapeControlCharactersInStrings(text: string): string {
  let out = '';
  let inString = false;
  let escaped = false;
  let last = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!inString) {
      if (code === 0x22) inString = true;
      continue;
    }
    if (escaped) {
      escaped = false;
      continue;
    }
    if (code === 0x5c) {
      escaped = true;
    } else if (code === 0x22) {
      inString = false;
    } else if (code < 0x20) {
      out += `${text.slice(last, i)}\\u${code.toString(16).padStart(4, '0')}`;
      last = i + 1;
    }
  }
  return last === 0 ? text : out + text.slice(last);
}

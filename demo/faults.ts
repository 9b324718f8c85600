// Scripted hostile behaviour: a flat list of rules, each one fault kind plus where and how often.
import { createGzip } from 'node:zlib';
import type {
  Fault,
  FaultHandle,
  FaultKind,
  FaultMatcher,
  FaultRule,
  FaultScope,
  RecordedRequest,
} from './types';

interface ActiveRule {
  match: FaultMatcher;
  fault: Fault;
  remaining: number | undefined;
  userAgentIncludes: string | undefined;
  hits: number;
}

const SHORT_CIRCUIT: ReadonlySet<FaultKind> = new Set([
  'status',
  'hangup',
  'redirect',
  'redirectChain',
  'redirectLoop',
  'poisonPdf',
]);

export function isShortCircuit(fault: Fault): boolean {
  return SHORT_CIRCUIT.has(fault.kind);
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\?]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`);
}

/** Whether a request matches a matcher (a path glob, a RegExp on path and query, or a predicate). */
export function requestMatches(matcher: FaultMatcher, req: RecordedRequest): boolean {
  if (typeof matcher === 'function') return matcher(req);
  if (matcher instanceof RegExp) return matcher.test(req.path);
  const target = matcher.includes('?') ? req.path : (req.path.split('?')[0] ?? '');
  return globToRegExp(matcher).test(target);
}

export class FaultBook {
  private rules: ActiveRule[] = [];

  add(match: FaultMatcher, fault: Fault, scope: FaultScope = {}): FaultHandle {
    validate(fault);
    if (scope.times !== undefined && (!Number.isInteger(scope.times) || scope.times < 1)) {
      throw new Error(`fake-council: times must be a positive integer, got ${scope.times}`);
    }
    const rule: ActiveRule = {
      match,
      fault,
      remaining: scope.times,
      userAgentIncludes: scope.userAgentIncludes?.toLowerCase(),
      hits: 0,
    };
    this.rules.push(rule);
    const book = this;
    return {
      fault,
      get hits() {
        return rule.hits;
      },
      get remaining() {
        return rule.remaining;
      },
      remove() {
        book.rules = book.rules.filter((r) => r !== rule);
      },
    };
  }

  addAll(rules: FaultRule[]): void {
    for (const { match, fault, ...scope } of rules) this.add(match, fault, scope);
  }

  clear(): void {
    this.rules = [];
  }

  /** The faults for this request, in the order they were set; each one used up counts down. */
  take(req: RecordedRequest): Fault[] {
    const hit = this.rules.filter(
      (r) =>
        requestMatches(r.match, req) &&
        (r.userAgentIncludes === undefined ||
          (req.userAgent ?? '').toLowerCase().includes(r.userAgentIncludes)),
    );
    for (const rule of hit) {
      rule.hits += 1;
      if (rule.remaining !== undefined) rule.remaining -= 1;
    }
    this.rules = this.rules.filter((r) => r.remaining === undefined || r.remaining > 0);
    return hit.map((r) => r.fault);
  }
}

function validate(fault: Fault): void {
  const bad = (why: string) => {
    throw new Error(`fake-council: invalid ${fault.kind} fault: ${why}`);
  };
  switch (fault.kind) {
    case 'status':
      if (!Number.isInteger(fault.status) || fault.status < 100 || fault.status > 599) bad('status 100–599');
      break;
    case 'delay':
      if (!(fault.delayMs >= 0)) bad('delayMs ≥ 0');
      break;
    case 'slowBody':
      if (!(fault.intervalMs >= 0) || (fault.chunkBytes ?? 1) < 1) bad('intervalMs ≥ 0, chunkBytes ≥ 1');
      break;
    case 'redirectChain':
      if (!Number.isInteger(fault.hops) || fault.hops < 1) bad('hops ≥ 1');
      break;
    default:
      break;
  }
}

/** Faults of `kind` among those taken for a request, typed. */
export function faultOf<K extends FaultKind>(
  faults: Fault[],
  kind: K,
): Extract<Fault, { kind: K }> | undefined {
  return faults.find((f): f is Extract<Fault, { kind: K }> => f.kind === kind);
}

/** Inserts raw control characters into every JSON string value that starts with a letter. */
export function injectControlChars(json: string): string {
  // Tab, newline and BEL unescaped inside a string make strict JSON.parse fail, as seen in
  // free-text fields of real RIS exports.
  return json.replace(/":"(?=[A-Za-zÄÖÜäöü])/g, '":"\t\n\u0007');
}

/** Default depth of the `nestingBomb` fault: ~20 KB of brackets, far beyond any recursive walk's stack. */
export const NESTING_BOMB_DEPTH = 10_000;

/**
 * `[[[…]]]` nested `depth` deep in a field `nested` (no OParl type has one) of the page's first item (or of the object itself):
 * valid JSON that `JSON.parse` reads fine but that overflows the stack of any recursive walk.
 */
export function injectNestingBomb(json: string, depth: number): string {
  const bomb = `${'['.repeat(depth)}${']'.repeat(depth)}`;
  const at = json.indexOf('"id":');
  if (at < 0) return json;
  return `${json.slice(0, at)}"nested":${bomb},${json.slice(at)}`;
}

/** Replaces string values of the named fields anywhere in the document. */
export function applyPlaceholders(doc: unknown, fields: ReadonlySet<string>, value: string): unknown {
  if (Array.isArray(doc)) return doc.map((v) => applyPlaceholders(v, fields, value));
  if (doc === null || typeof doc !== 'object') return doc;
  return Object.fromEntries(
    Object.entries(doc).map(([k, v]) => [
      k,
      fields.has(k) && typeof v === 'string' ? value : applyPlaceholders(v, fields, value),
    ]),
  );
}

const bombCache = new Map<number, Promise<Buffer>>();

/** Gzip of `inflatedBytes` of JSON whitespace, built in chunks so memory stays small. */
export function gzipBomb(inflatedBytes: number): Promise<Buffer> {
  const cached = bombCache.get(inflatedBytes);
  if (cached) return cached;
  const built = new Promise<Buffer>((resolve, reject) => {
    const gzip = createGzip({ level: 9 });
    const out: Buffer[] = [];
    gzip.on('data', (chunk: Buffer) => out.push(chunk));
    gzip.on('end', () => resolve(Buffer.concat(out)));
    gzip.on('error', reject);
    const chunk = Buffer.alloc(1 << 20, 0x20);
    let left = inflatedBytes;
    const pump = () => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!gzip.write(piece)) {
          gzip.once('drain', pump);
          return;
        }
      }
      gzip.end();
    };
    pump();
  });
  bombCache.set(inflatedBytes, built);
  return built;
}

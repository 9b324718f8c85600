import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { PLACEHOLDER_VALUES, ZONE } from './constants';

/** Pure helpers over OParl objects and list pages as received — no I/O, no assumptions of a version. */

export type OParlObject = Record<string, unknown>;

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string value, or undefined for absent values and vendor placeholders ("N/A", ""). */
export function textValue(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return PLACEHOLDER_VALUES.includes(trimmed) ? undefined : trimmed;
}

/** The object's OParl id (a URL), or undefined. */
export function objectId(obj: OParlObject): string | undefined {
  return textValue(obj.id);
}

/**
 * Lower-case OParl type name from the type URI (`https://schema.oparl.org/1.1/AgendaItem` →
 * `agendaitem`). Deleted entries of some vendors carry no `type`: the caller passes the list's type.
 */
export function typeName(obj: OParlObject, fallback?: string): string | undefined {
  const uri = textValue(obj.type);
  if (uri !== undefined && /schema\.oparl\.org/i.test(uri)) {
    const name = uri.replace(/\/+$/, '').split('/').pop();
    if (name && /^[A-Za-z]+$/.test(name)) return name.toLowerCase();
  }
  return fallback;
}

export function isDeleted(obj: OParlObject): boolean {
  return obj.deleted === true || obj.deleted === 'true';
}

/** Parses an OParl date or date-time (with or without offset colon, date only = Berlin midnight). */
export function parseOParlTime(value: unknown): DateTime | undefined {
  const text = textValue(value);
  if (text === undefined) return undefined;
  const parsed = DateTime.fromISO(text, { zone: ZONE });
  return parsed.isValid ? parsed.setZone(ZONE) : undefined;
}

/**
 * The shape nearly every vendor sends (RFC 3339: date, time of day, an explicit `Z` or ±hh:mm offset,
 * at most milliseconds): its instant is fixed by the text alone, so `Date.parse` reads the same
 * milliseconds as luxon without luxon's zone arithmetic (issue 28: a nightly full sync reads one per
 * object, and luxon was ≈ 13 % of its CPU). A day past the month's last (30 February) takes luxon's way,
 * which rejects it.
 */
const INSTANT_WITH_OFFSET =
  /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):([0-5]\d):([0-5]\d)(?:\.\d{1,3})?(Z|[+-](?:0\d|1[0-4]):([0-5]\d))$/;

/** The text's fields when it has that shape and its day exists (`Date.parse` would roll 30 February over). */
function instantWithOffset(text: string): RegExpExecArray | undefined {
  const m = INSTANT_WITH_OFFSET.exec(text);
  if (!m) return undefined;
  const [, year, month, day] = m;
  const lastDay = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
  return Number(day) <= lastDay ? m : undefined;
}

/** The instant of an OParl time as epoch ms (what `parseOParlTime(value)?.toMillis()` gives), or undefined. */
export function oparlTimeMs(value: unknown): number | undefined {
  const text = textValue(value);
  if (text === undefined) return undefined;
  if (instantWithOffset(text)) return Date.parse(text);
  return parseOParlTime(text)?.toMillis();
}

export function modifiedMs(obj: OParlObject): number | undefined {
  return oparlTimeMs(obj.modified);
}

/**
 * SCH-9: does this `modified` demonstrably carry a time of day? Date-only values and values at exactly
 * 00:00:00 Berlin time do not (vendors that store dates write them as midnight).
 */
export function carriesTimeOfDay(value: unknown): boolean {
  const text = textValue(value);
  if (text === undefined || !text.includes('T')) return false;
  // Issue 28: Berlin's offsets since 1893 are whole hours, so a time at a whole-hour offset whose minute
  // or second is not 0 is not midnight in Berlin either — no zone arithmetic needed (luxon for the rest).
  const m = instantWithOffset(text);
  if (m && Number(m[1]) >= 1900 && (m[8] === undefined || m[8] === '00') && (m[5] !== '00' || m[6] !== '00'))
    return true;
  const t = parseOParlTime(text);
  if (!t) return false;
  return t.hour !== 0 || t.minute !== 0 || t.second !== 0;
}

/** The items of a list page, whatever shape the vendor chose. */
export function pageItems(body: unknown): OParlObject[] {
  // Quirk: a bare array (some servers, and SD.NET's `[]` for an empty filtered page).
  if (Array.isArray(body)) return body.filter(isRecord);
  if (!isRecord(body)) return [];
  const data = body.data;
  if (Array.isArray(data)) return data.filter(isRecord);
  // Quirk: a single object where the schema says array.
  if (isRecord(data)) return [data];
  // Quirk: `/body` answering with a single Body instead of a list page.
  if (data === undefined && textValue(body.id) !== undefined) return [body];
  return [];
}

/** `links.next` of a list page (absolute, resolved against the page URL), or undefined. */
export function pageNext(body: unknown, pageUrl: string): string | undefined {
  if (!isRecord(body)) return undefined;
  const links = body.links;
  const raw = isRecord(links) ? textValue(links.next) : undefined;
  // OParl 1.0 drafts and a few servers put `next` at the top level or in `pagination`.
  const fallback =
    textValue(body.next) ?? (isRecord(body.pagination) ? textValue(body.pagination.next) : undefined);
  const next = raw ?? fallback;
  if (next === undefined) return undefined;
  try {
    return new URL(next, pageUrl).toString();
  } catch {
    return undefined;
  }
}

/**
 * `links.next` pointing to the same or an earlier `page` of the same list (same path and parameters
 * otherwise) is a cycle, however many pages ago it was (a URL without `page` is page 1).
 */
export function pageGoesBack(current: string, next: string): boolean {
  try {
    const a = new URL(current);
    const b = new URL(next);
    if (a.origin !== b.origin || a.pathname !== b.pathname || !b.searchParams.has('page')) return false;
    const rest = (u: URL) => {
      const q = new URLSearchParams(u.searchParams);
      q.delete('page');
      q.sort();
      return q.toString();
    };
    if (rest(a) !== rest(b)) return false;
    const pageA = Number(a.searchParams.get('page') ?? '1');
    const pageB = Number(b.searchParams.get('page'));
    return Number.isFinite(pageA) && Number.isFinite(pageB) && pageB <= pageA;
  } catch {
    return false;
  }
}

/**
 * A page's identity for noticing a list that goes round without a cycle in its links: some servers
 * (SOMACOS SessionNet of shared data centres, body lists) serve the same page under every `?page=n`,
 * each linking to the next number. The ids of the page's objects, in order, as one digest; undefined
 * for a page without objects (an empty page proves nothing).
 */
export function pageIdentity(items: readonly OParlObject[]): string | undefined {
  const ids = items.map((i) => objectId(i)).filter((id): id is string => id !== undefined);
  return ids.length === 0 ? undefined : sha256Hex(ids.join('\n')).slice(0, 32);
}

export interface EmbeddedObject {
  object: OParlObject;
  type: string;
  id: string;
  parentId: string;
}

/** Fields that reference the parent or other objects by URL only; never walked for embedded objects. */
const MAX_EMBED_DEPTH = 6;

/**
 * Objects embedded in an object (agenda items and files in a meeting, files and consultations in a
 * paper, memberships in a person, locations, legislative terms in a body …), depth first. Each is
 * mirrored as an object of its own type. Only values with an id and an OParl type URI count, so GeoJSON
 * features and plain sub-records are left alone. A single object where an array is expected is fine.
 */
export function embeddedObjects(root: OParlObject): EmbeddedObject[] {
  const found: EmbeddedObject[] = [];
  const rootId = objectId(root) ?? '';
  const walk = (value: unknown, parentId: string, depth: number): void => {
    if (depth > MAX_EMBED_DEPTH) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, parentId, depth);
      return;
    }
    if (!isRecord(value)) return;
    const id = objectId(value);
    const type = typeName(value);
    if (id !== undefined && type !== undefined) {
      found.push({ object: value, type, id, parentId });
      for (const child of Object.values(value)) walk(child, id, depth + 1);
    }
  };
  for (const [key, child] of Object.entries(root)) {
    if (key === 'id' || key === 'type') continue;
    walk(child, rootId, 1);
  }
  return found;
}

const DROPPED = Symbol('dropped');

/** One value with the embedded objects `drop` names taken out; DROPPED when it is one of them. */
function pruned(value: unknown, drop: (id: string) => boolean, depth: number): unknown {
  if (depth > MAX_EMBED_DEPTH) return value;
  if (Array.isArray(value)) {
    const kept = value.map((item) => pruned(item, drop, depth));
    if (kept.every((item, i) => item === value[i])) return value;
    return kept.filter((item) => item !== DROPPED);
  }
  // Plain sub-records (GeoJSON …) are left alone, as `embeddedObjects` leaves them.
  if (!isRecord(value) || typeName(value) === undefined) return value;
  const id = objectId(value);
  if (id === undefined) return value;
  return drop(id) ? DROPPED : prunedProperties(value, drop, depth + 1);
}

function prunedProperties(object: OParlObject, drop: (id: string) => boolean, depth: number): OParlObject {
  let out: OParlObject | undefined;
  for (const [key, child] of Object.entries(object)) {
    const next = pruned(child, drop, depth);
    if (next === child) continue;
    out ??= { ...object };
    if (next === DROPPED) delete out[key];
    else out[key] = next;
  }
  return out ?? object;
}

/**
 * OPT-5: the object without the embedded objects that `drop` names (a taken-down file inside its paper,
 * an agenda item inside its meeting), at any depth: array items are filtered out, a single-valued
 * property (a paper's `mainFile`) is removed. Embedded objects are those `embeddedObjects` finds. The
 * object itself is returned when nothing is dropped, so an unaffected object costs no copy.
 */
export function withoutEmbedded(root: OParlObject, drop: (id: string) => boolean): OParlObject {
  return prunedProperties(root, drop, 1);
}

/** JSON with object keys sorted, so the same content hashes the same whatever order a server sends. */
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableStringify(value[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Content fingerprint of an object as received (new vs modified vs unchanged). */
export function contentHash(obj: OParlObject): string {
  return sha256Hex(stableStringify(obj)).slice(0, 32);
}

const TRANSLITERATION: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', ß: 'ss', ẞ: 'ss' };

/**
 * Body slug: lower case, umlauts transliterated (ö → oe, ß → ss), anything else not a–z/0–9 → '-'.
 * Uniqueness per source is the caller's (State reservation items).
 */
export function slugify(text: string): string {
  // NFC first: a decomposed umlaut (o + U+0308, as some systems send it) must become "oe", not "o".
  const lowered = text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[äöüßẞ]/g, (c) => TRANSLITERATION[c] ?? c);
  const ascii = lowered.normalize('NFKD').replace(/[\u0300-\u036f]/g, '');
  return ascii
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/g, '');
}

/** The slug a body would get before uniqueness: short name when it has one, else the name, else its id. */
export function bodySlugBase(body: OParlObject): string {
  const candidates = [textValue(body.shortName), textValue(body.name)];
  for (const c of candidates) {
    if (c === undefined) continue;
    const slug = slugify(c);
    if (slug !== '') return slug;
  }
  return `body-${sha256Hex(objectId(body) ?? '').slice(0, 8)}`;
}

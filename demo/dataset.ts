// The council system's data: generated deterministically from a seed, mutable at runtime, and
// rendered to OParl JSON with URLs of whatever host the server runs on.
import { createHash } from 'node:crypto';
import { buildPdf } from './pdf';
import { berlinDate, berlinIso, berlinLocalMs, berlinMidnight, parseTimestamp } from './time';
import {
  type BodySpec,
  type FakeCouncilOptions,
  LIST_KEYS,
  type ListKey,
  type Mutation,
  type ObjectRef,
  type OparlVersion,
  type Vendor,
} from './types';
import {
  agendaTitles,
  committees,
  consultationRoles,
  DEFAULT_BODY_NAMES,
  familyNames,
  givenNames,
  paperSubjects,
  paperTypes,
  results,
  specValues,
  streets,
  vendorSystemFields,
} from './vocabulary';

const TYPE_NAMES: Record<ListKey, string> = {
  organization: 'Organization',
  person: 'Person',
  meeting: 'Meeting',
  paper: 'Paper',
  legislativeTerm: 'LegislativeTerm',
  agendaItem: 'AgendaItem',
  membership: 'Membership',
  consultation: 'Consultation',
  file: 'File',
  locationList: 'Location',
};

/** Body field that links each list; legislativeTerm is embedded under its own name in 1.1 too. */
const BODY_FIELDS: Record<ListKey, string> = {
  organization: 'organization',
  person: 'person',
  meeting: 'meeting',
  paper: 'paper',
  legislativeTerm: 'legislativeTermList',
  agendaItem: 'agendaItem',
  membership: 'membership',
  consultation: 'consultation',
  file: 'file',
  locationList: 'locationList',
};
const OPARL_10_LISTS: readonly ListKey[] = ['organization', 'person', 'meeting', 'paper'];

const DAY_MS = 86_400_000;
/** Generated objects spread over this span before `latestModified`. */
const SPREAD_MS = 540 * DAY_MS;

// Markers inside stored fields, resolved at render time so ids follow the server's host and
// embedded copies always show the current state of the object they embed.
type Link = { $link: ListKey; n: number };
type Embed = { $embed: ListKey; n: number };
/** Objects of `list` whose field `via` links to the object being rendered. */
type Children = { $children: ListKey; via: string; embed: boolean; take?: 'first' | 'rest' };
type All = { $all: ListKey };
type BodyLink = { $body: true };

const link = (list: ListKey, n: number): Link => ({ $link: list, n });

export interface StoredObject {
  body: number;
  list: ListKey;
  n: number;
  fields: Record<string, unknown>;
  created: string;
  modified: string;
  modifiedMs: number;
  deleted: boolean;
  /** Bumped on every update; a file's bytes (and so its ETag) depend on it. */
  revision: number;
}

interface BodyState {
  n: number;
  name: string;
  shortName: string;
  ags: string;
  created: string;
  modified: string;
  lists: Record<ListKey, StoredObject[]>;
}

export interface FileContent {
  bytes: Buffer;
  etag: string;
  modifiedMs: number;
  fileName: string;
}

export interface DatasetConfig {
  oparlVersion: OparlVersion;
  vendor: Vendor;
  basePath: string;
  bodies: BodySpec[];
  counts: Record<ListKey, number>;
  seed: number;
  latestModifiedMs: number;
  midnightLists: ReadonlySet<ListKey>;
  now: () => Date;
}

export function datasetConfig(options: FakeCouncilOptions): DatasetConfig {
  const bodyOption = options.bodies ?? 1;
  const bodies: BodySpec[] =
    typeof bodyOption === 'number'
      ? Array.from({ length: bodyOption }, (_, i) => ({
          name: DEFAULT_BODY_NAMES[i] ?? `Gemeinde Musterdorf ${i + 1}`,
        }))
      : bodyOption.map((b) => (typeof b === 'string' ? { name: b } : b));
  const per = options.objectsPerList ?? 12;
  const counts = Object.fromEntries(
    LIST_KEYS.map((k) => [k, typeof per === 'number' ? per : (per[k] ?? 12)]),
  ) as Record<ListKey, number>;
  return {
    oparlVersion: options.oparlVersion ?? '1.1',
    vendor: options.vendor ?? 'generic',
    basePath: (options.basePath ?? '/oparl/v1').replace(/\/$/, ''),
    bodies,
    counts,
    seed: options.seed ?? 1,
    latestModifiedMs: parseTimestamp(options.latestModified ?? '2024-06-28T16:30:00+02:00'),
    midnightLists: new Set(options.midnightModifiedLists ?? []),
    now: options.now ?? (() => new Date()),
  };
}

// mulberry32: tiny, fast, and good enough to make test data look varied yet reproducible.
function rng(...seeds: number[]): () => number {
  let a = 0x9e3779b9;
  for (const s of seeds) a = Math.imul(a ^ (s | 0), 0x85ebca6b) + 0x27d4eb2f;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function choose<T>(items: readonly T[], r: () => number): T {
  const item = items[Math.floor(r() * items.length)];
  if (item === undefined) throw new Error('fake-council: empty word list');
  return item;
}

function at<T>(items: readonly T[], i: number): T {
  const item = items[i % items.length];
  if (item === undefined) throw new Error('fake-council: empty word list');
  return item;
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** 1-based index of the `k`-th related object in a list of `count`, or undefined for an empty list. */
function wrap(k: number, count: number): number | undefined {
  return count > 0 ? ((k - 1) % count) + 1 : undefined;
}

export class Dataset {
  readonly config: DatasetConfig;
  readonly systemCreated: string;
  private base: string;
  private readonly bodies: BodyState[];
  private readonly fileCache = new Map<string, FileContent>();

  constructor(config: DatasetConfig, base: string) {
    this.config = config;
    this.base = base;
    this.systemCreated = berlinIso(config.latestModifiedMs - SPREAD_MS - 30 * DAY_MS);
    this.bodies = config.bodies.map((spec, i) => this.generateBody(spec, i + 1));
  }

  /** Set once the port is known. */
  setBase(base: string): void {
    this.base = base;
  }

  // URLs ------------------------------------------------------------------------------------

  get systemUrl(): string {
    return `${this.base}${this.config.basePath}/system`;
  }
  get bodyListUrl(): string {
    return `${this.base}${this.config.basePath}/bodies`;
  }
  bodyUrl(b: number): string {
    return `${this.bodyListUrl}/${b}`;
  }
  listUrl(b: number, list: ListKey): string {
    return `${this.bodyUrl(b)}/${list}`;
  }
  objectUrl(b: number, list: ListKey, n: number): string {
    return `${this.listUrl(b, list)}/${n}`;
  }
  fileAccessUrl(b: number, n: number): string {
    return `${this.base}/files/${b}/${n}.pdf`;
  }
  fileDownloadUrl(b: number, n: number): string {
    return `${this.base}/files/${b}/${n}.pdf?download=1`;
  }

  /** Resolves an object URL (any host: only the path counts) to its place in the dataset. */
  locate(id: string): { body: number; list: ListKey; n: number } | undefined {
    let path: string;
    try {
      path = new URL(id, this.base).pathname;
    } catch {
      return undefined;
    }
    const prefix = `${this.config.basePath}/bodies/`;
    if (!path.startsWith(prefix)) return undefined;
    const [b, list, n, ...rest] = path.slice(prefix.length).split('/');
    if (rest.length > 0 || !b || !list || !n || !/^\d+$/.test(b) || !/^\d+$/.test(n)) return undefined;
    if (!(LIST_KEYS as readonly string[]).includes(list)) return undefined;
    return { body: Number(b), list: list as ListKey, n: Number(n) };
  }

  // Access ----------------------------------------------------------------------------------

  get bodyCount(): number {
    return this.bodies.length;
  }

  hasBody(b: number): boolean {
    return b >= 1 && b <= this.bodies.length;
  }

  stored(b: number, list: ListKey): StoredObject[] {
    const body = this.bodies[b - 1];
    if (!body) throw new Error(`fake-council: no body ${b}`);
    return body.lists[list];
  }

  find(b: number, list: ListKey, n: number): StoredObject | undefined {
    if (!this.hasBody(b)) return undefined;
    return this.stored(b, list).find((o) => o.n === n);
  }

  typeUri(typeName: string): string {
    return `https://schema.oparl.org/${this.config.oparlVersion}/${typeName}`;
  }

  // Rendering -------------------------------------------------------------------------------

  renderSystem(): Record<string, unknown> {
    const v = this.config.oparlVersion;
    const system: Record<string, unknown> = {
      id: this.systemUrl,
      type: this.typeUri('System'),
      oparlVersion: `https://schema.oparl.org/${v}/`,
      body: this.bodyListUrl,
      name: specValues.systemName,
      contactEmail: 'ris@musterstadt.example',
      contactName: specValues.systemContactName,
      website: `${this.base}/`,
      vendor: specValues.systemVendor,
      product: specValues.systemProduct,
      created: this.systemCreated,
      modified: this.systemCreated,
    };
    if (this.config.vendor !== 'generic') {
      Object.assign(system, vendorSystemFields[this.config.vendor]);
      // Neither recorded vendor system carries timestamps.
      delete system.created;
      delete system.modified;
    }
    return system;
  }

  renderBody(b: number): Record<string, unknown> {
    const body = this.bodies[b - 1];
    if (!body) throw new Error(`fake-council: no body ${b}`);
    const v11 = this.config.oparlVersion === '1.1';
    const out: Record<string, unknown> = {
      id: this.bodyUrl(b),
      type: this.typeUri('Body'),
      system: this.systemUrl,
      shortName: body.shortName,
      name: body.name,
      ags: body.ags,
      rgs: body.ags.padEnd(12, '0'),
      website: `https://www.${slug(body.shortName)}.example/`,
      license: specValues.bodyLicense,
      licenseValidSince: v11 ? '2014-01-01T00:00:00+01:00' : '2014-01-01',
      contactEmail: `ris@${slug(body.shortName)}.example`,
      contactName: specValues.bodyContactName,
      classification: /^(Land)?kreis\b/i.test(body.name)
        ? 'Landkreis'
        : body.name.startsWith('Gemeinde')
          ? 'Gemeinde'
          : specValues.bodyClassification,
    };
    for (const list of LIST_KEYS) {
      if (v11 || OPARL_10_LISTS.includes(list)) out[BODY_FIELDS[list]] = this.listUrl(b, list);
    }
    out.legislativeTerm = this.stored(b, 'legislativeTerm')
      .filter((t) => !t.deleted)
      .map((t) => this.renderObject(t, 1));
    out.created = body.created;
    out.modified = body.modified;
    return out;
  }

  /** Full object, or its tombstone when deleted. `depth` > 0 means embedded. */
  renderObject(obj: StoredObject, depth = 0): Record<string, unknown> {
    const id = this.objectUrl(obj.body, obj.list, obj.n);
    const type = this.typeUri(TYPE_NAMES[obj.list]);
    if (obj.deleted) return { id, type, created: obj.created, modified: obj.modified, deleted: true };
    const out: Record<string, unknown> = { id, type };
    for (const [key, value] of Object.entries(obj.fields)) {
      const rendered = this.resolve(obj, value, depth);
      if (rendered !== undefined) out[key] = rendered;
    }
    if (obj.list === 'file') {
      const content = this.fileContent(obj);
      out.size = content.bytes.length;
      out.sha1Checksum = createHash('sha1').update(content.bytes).digest('hex');
      out.accessUrl = this.fileAccessUrl(obj.body, obj.n);
      out.downloadUrl = this.fileDownloadUrl(obj.body, obj.n);
    }
    out.created = obj.created;
    out.modified = obj.modified;
    return out;
  }

  private resolve(owner: StoredObject, value: unknown, depth: number): unknown {
    if (Array.isArray(value)) {
      return value.map((v) => this.resolve(owner, v, depth)).filter((v) => v !== undefined);
    }
    if (value === null || typeof value !== 'object') return value;
    const marker = value as Partial<Link & Embed & Children & All & BodyLink>;
    if (marker.$body) return this.bodyUrl(owner.body);
    if (marker.$link && marker.n !== undefined) return this.objectUrl(owner.body, marker.$link, marker.n);
    if (marker.$embed && marker.n !== undefined) {
      const target = this.find(owner.body, marker.$embed, marker.n);
      return target && !target.deleted ? this.renderObject(target, depth + 1) : undefined;
    }
    if (marker.$all) {
      return this.stored(owner.body, marker.$all)
        .filter((o) => !o.deleted)
        .map((o) => this.renderObject(o, depth + 1));
    }
    if (marker.$children && marker.via) {
      const children = this.stored(owner.body, marker.$children).filter(
        (c) => !c.deleted && linksTo(c.fields[marker.via ?? ''], owner),
      );
      // Only top-level objects embed; deeper levels link, which also rules out cycles.
      const render = (c: StoredObject) =>
        marker.embed && depth === 0 ? this.renderObject(c, depth + 1) : this.objectUrl(c.body, c.list, c.n);
      if (marker.take === 'first') return children[0] ? render(children[0]) : undefined;
      if (marker.take === 'rest') return children.slice(1).map(render);
      return children.map(render);
    }
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, this.resolve(owner, v, depth)] as const),
    );
  }

  fileContent(obj: StoredObject): FileContent {
    const key = `${obj.body}/${obj.n}/${obj.revision}`;
    const cached = this.fileCache.get(key);
    if (cached) return cached;
    const body = this.bodies[obj.body - 1];
    const name = String(obj.fields.name ?? 'Dokument');
    const bytes = buildPdf([
      body?.name ?? '',
      name,
      `Datei ${obj.n}, Fassung ${obj.revision}`,
      specValues.fileText,
      'Erzeugt vom Test-Ratsinformationssystem (fake council) für mandari ingestor.',
    ]);
    const content: FileContent = {
      bytes,
      etag: `"${createHash('sha1').update(bytes).digest('hex').slice(0, 16)}"`,
      modifiedMs: obj.modifiedMs,
      fileName: String(obj.fields.fileName ?? `${obj.n}.pdf`),
    };
    this.fileCache.set(key, content);
    return content;
  }

  // Mutation --------------------------------------------------------------------------------

  mutate(m: Mutation): string {
    const stamp = m.modified ?? berlinIso(Math.floor(this.config.now().getTime() / 1000) * 1000);
    const stampMs = parseTimestamp(stamp);
    if (m.op === 'add') {
      const b = m.body ?? 1;
      if (!this.hasBody(b)) throw new Error(`fake-council: no body ${b}`);
      const list = this.stored(b, m.list);
      const n = list.reduce((max, o) => Math.max(max, o.n), 0) + 1;
      const obj = this.generate(b, m.list, n);
      Object.assign(obj.fields, this.importFields(b, m.set ?? {}));
      obj.created = stamp;
      obj.modified = stamp;
      obj.modifiedMs = stampMs;
      list.push(obj);
      return this.objectUrl(b, m.list, n);
    }
    const target = this.resolveRef(m);
    if (m.op === 'update') Object.assign(target.fields, this.importFields(target.body, m.set));
    else target.deleted = true;
    target.modified = stamp;
    target.modifiedMs = stampMs;
    target.revision += 1;
    return this.objectUrl(target.body, target.list, target.n);
  }

  private resolveRef(ref: ObjectRef): StoredObject {
    const place = 'id' in ref ? this.locate(ref.id) : { body: ref.body ?? 1, list: ref.list, n: ref.n };
    const obj = place && this.find(place.body, place.list, place.n);
    if (!obj) throw new Error(`fake-council: no object ${JSON.stringify(ref)}`);
    return obj;
  }

  /** URLs of this server's objects become links again, so relations set by tests stay live. */
  private importFields(b: number, set: Record<string, unknown>): Record<string, unknown> {
    const convert = (v: unknown): unknown => {
      if (Array.isArray(v)) return v.map(convert);
      if (typeof v !== 'string' || !/^https?:\/\//.test(v)) return v;
      const place = this.locate(v);
      return place && place.body === b ? link(place.list, place.n) : v;
    };
    return Object.fromEntries(Object.entries(set).map(([k, v]) => [k, convert(v)]));
  }

  // Generation ------------------------------------------------------------------------------

  private generateBody(spec: BodySpec, b: number): BodyState {
    const r = rng(this.config.seed, b, 0xb0d7);
    const shortName = spec.shortName ?? spec.name.replace(/^(Stadt|Gemeinde|Landkreis|Kreis|Amt)\s+/, '');
    const created = berlinIso(this.config.latestModifiedMs - SPREAD_MS - Math.floor(r() * 20) * DAY_MS);
    const lists = Object.fromEntries(LIST_KEYS.map((k) => [k, [] as StoredObject[]])) as Record<
      ListKey,
      StoredObject[]
    >;
    const body: BodyState = {
      n: b,
      name: spec.name,
      shortName,
      ags: spec.ags ?? `0${1 + Math.floor(r() * 9)}${String(Math.floor(r() * 1e6)).padStart(6, '0')}`,
      created,
      modified: created,
      lists,
    };
    for (const list of LIST_KEYS) {
      for (let n = 1; n <= this.config.counts[list]; n++) lists[list].push(this.generate(b, list, n));
    }
    return body;
  }

  private bodyName(b: number): string {
    return this.config.bodies[b - 1]?.name ?? '';
  }

  private generate(b: number, list: ListKey, n: number): StoredObject {
    const r = rng(this.config.seed, b, LIST_KEYS.indexOf(list) + 1, n);
    let modifiedMs = this.config.latestModifiedMs - Math.floor((r() * SPREAD_MS) / 1000) * 1000;
    if (this.config.midnightLists.has(list)) modifiedMs = berlinMidnight(modifiedMs);
    const createdMs = modifiedMs - Math.floor(r() * 200) * DAY_MS;
    return {
      body: b,
      list,
      n,
      fields: this.fieldsFor(b, list, n, r, createdMs),
      created: berlinIso(createdMs),
      modified: berlinIso(modifiedMs),
      modifiedMs,
      deleted: false,
      revision: 1,
    };
  }

  private fieldsFor(b: number, list: ListKey, n: number, r: () => number, createdMs: number) {
    const c = this.config.counts;
    const body: BodyLink = { $body: true };
    switch (list) {
      case 'organization': {
        const com = at(committees, n - 1);
        const round = Math.floor((n - 1) / committees.length);
        return {
          body,
          name: round ? `${com.name} (${round + 1})` : com.name,
          shortName: com.shortName,
          organizationType: com.type,
          classification: com.classification,
          startDate: berlinDate(createdMs),
          post: specValues.posts,
          membership: { $children: 'membership', via: 'organization', embed: false } satisfies Children,
          keyword: n === 1 ? specValues.keywords : [],
        };
      }
      case 'person': {
        const picked = choose(givenNames, r);
        const given = n === 1 ? specValues.givenName : picked.name;
        const family = n === 1 ? specValues.familyName : choose(familyNames, r);
        const title = n === 1 ? specValues.titles : [];
        return {
          body,
          name: [...title, given, family].join(' '),
          familyName: family,
          givenName: given,
          title,
          formOfAddress: n === 1 ? specValues.formOfAddress : picked.formOfAddress,
          status: n === 1 ? specValues.personStatus : ['Ratsmitglied'],
          membership: { $children: 'membership', via: 'person', embed: true } satisfies Children,
        };
      }
      case 'membership': {
        const person = wrap(n, c.person);
        const org = wrap((n - 1) * 5 + 1, c.organization);
        return {
          ...(person ? { person: link('person', person) } : {}),
          ...(org ? { organization: link('organization', org) } : {}),
          role: n % 4 === 1 ? at(specValues.membershipRoles, n) : 'Mitglied',
          votingRight: n % 4 !== 2,
          startDate: berlinDate(createdMs),
          ...(n % 6 === 0 ? { endDate: berlinDate(createdMs + 300 * DAY_MS) } : {}),
        };
      }
      case 'meeting': {
        const org = wrap(n, c.organization);
        const com = at(committees, (org ?? 1) - 1);
        // Every nine days a meeting at 17:00; the last two lie in the future of `latestModified`.
        const day = berlinDate(this.config.latestModifiedMs - ((c.meeting - n) * 9 - 14) * DAY_MS);
        const start = berlinLocalMs(day, 17);
        const loc = wrap(n, c.locationList);
        return {
          name: n === 1 ? specValues.meetingName : `${n}. Sitzung – ${com.name}`,
          meetingState: start < this.config.latestModifiedMs ? 'durchgeführt' : 'eingeladen',
          cancelled: n % 11 === 0,
          start: berlinIso(start),
          end: berlinIso(start + 150 * 60_000),
          ...(loc ? { location: { $embed: 'locationList', n: loc } satisfies Embed } : {}),
          organization: org ? [link('organization', org)] : [],
          invitation: { $children: 'file', via: 'meeting', embed: true, take: 'first' } satisfies Children,
          auxiliaryFile: { $children: 'file', via: 'meeting', embed: true, take: 'rest' } satisfies Children,
          agendaItem: { $children: 'agendaItem', via: 'meeting', embed: true } satisfies Children,
        };
      }
      case 'agendaItem': {
        const meeting = wrap(n, c.meeting);
        const order = c.meeting > 0 ? Math.floor((n - 1) / c.meeting) + 1 : n;
        const decided = n % 3 !== 0;
        return {
          ...(meeting ? { meeting: link('meeting', meeting) } : {}),
          number: String(order),
          order,
          name: n === 1 ? specValues.agendaItemName : at(agendaTitles, n + order),
          public: n % 5 !== 0,
          ...(n <= c.consultation ? { consultation: link('consultation', n) } : {}),
          ...(decided ? { result: n === 1 ? specValues.agendaItemResult : choose(results, r) } : {}),
          ...(n === 1 ? { resolutionText: specValues.resolutionText } : {}),
        };
      }
      case 'paper': {
        const type = n === 1 ? specValues.paperType : choose(paperTypes, r);
        const org = wrap(n * 3, c.organization);
        const year = berlinDate(createdMs).slice(0, 4);
        return {
          body,
          name: n === 1 ? specValues.paperName : `${at(paperSubjects, n)}`,
          reference: `${String(n).padStart(4, '0')}/${year}`,
          date: berlinDate(createdMs),
          paperType: type,
          mainFile: { $children: 'file', via: 'paper', embed: true, take: 'first' } satisfies Children,
          auxiliaryFile: { $children: 'file', via: 'paper', embed: true, take: 'rest' } satisfies Children,
          consultation: { $children: 'consultation', via: 'paper', embed: true } satisfies Children,
          ...(org ? { originatorOrganization: [link('organization', org)] } : {}),
          ...(org ? { underDirectionOf: [link('organization', org)] } : {}),
        };
      }
      case 'consultation': {
        const paper = wrap(n, c.paper);
        const agendaItem = n <= c.agendaItem ? n : undefined;
        const meeting = agendaItem ? wrap(agendaItem, c.meeting) : undefined;
        const org = meeting ? wrap(meeting, c.organization) : undefined;
        return {
          ...(paper ? { paper: link('paper', paper) } : {}),
          ...(agendaItem ? { agendaItem: link('agendaItem', agendaItem) } : {}),
          ...(meeting ? { meeting: link('meeting', meeting) } : {}),
          organization: org ? [link('organization', org)] : [],
          authoritative: n % 2 === 1,
          role: n === 1 ? specValues.consultationRole : choose(consultationRoles, r),
        };
      }
      case 'file': {
        // Odd files belong to meetings, even ones to papers; the first per owner is the
        // invitation / main file, later ones are auxiliary files.
        const forMeeting = n % 2 === 1;
        const k = Math.floor((n - 1) / 2) + 1;
        const ownerCount = forMeeting ? c.meeting : c.paper;
        const owner = wrap(k, ownerCount);
        const first = ownerCount === 0 || k <= ownerCount;
        const name = forMeeting
          ? first
            ? specValues.invitationName
            : specValues.supplementName
          : first
            ? 'Vorlage'
            : specValues.annexName;
        return {
          name,
          fileName: `${slug(name)}-${b}-${n}.pdf`,
          mimeType: 'application/pdf',
          date: berlinDate(createdMs),
          ...(n % 3 === 0 ? { fileLicense: specValues.fileLicense } : {}),
          ...(owner
            ? { [forMeeting ? 'meeting' : 'paper']: [link(forMeeting ? 'meeting' : 'paper', owner)] }
            : {}),
        };
      }
      case 'legislativeTerm': {
        const startYear = 2024 - 5 * (c.legislativeTerm - n);
        return {
          body,
          name:
            n === c.legislativeTerm
              ? specValues.legislativeTermName
              : `Wahlperiode ${startYear}–${startYear + 5}`,
          startDate: `${startYear}-11-01`,
          endDate: `${startYear + 5}-10-31`,
        };
      }
      case 'locationList': {
        const street = at(streets, n - 1);
        const postalCode = String(10_000 + ((b * 7919 + n * 104_729) % 89_999));
        const locality = this.bodyName(b).replace(/^(Stadt|Gemeinde|Landkreis|Kreis|Amt)\s+/, '');
        return {
          description: n === 1 ? specValues.locationDescription : `${street}, ${postalCode} ${locality}`,
          streetAddress: street,
          postalCode,
          locality,
          room: n === 1 ? specValues.room : `Sitzungssaal ${n}`,
          geojson: {
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [9 + r(), 50 + r()] },
            properties: { name: n === 1 ? specValues.locationName : street },
          },
        };
      }
    }
  }
}

function linksTo(value: unknown, owner: StoredObject): boolean {
  const hit = (v: unknown) => {
    const l = v as Partial<Link> | null;
    return typeof l === 'object' && l !== null && l.$link === owner.list && l.n === owner.n;
  };
  return Array.isArray(value) ? value.some(hit) : hit(value);
}

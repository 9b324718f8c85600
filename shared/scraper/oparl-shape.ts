import type { OParlObject } from '../engine';
import { berlinDateTime, displayPersonName, splitPersonName } from './html';
import type {
  CalendarRow,
  OrganizationKind,
  ParsedAgendaItem,
  ParsedAgendaItemDetail,
  ParsedFile,
  ParsedMeeting,
  ParsedOrganization,
  ParsedPaper,
  ParsedPerson,
  Ref,
  ScraperProduct,
} from './types';

/**
 * Scraped records as OParl 1.1 objects, so the mirror, the Documents table, tombstones, status and
 * everything downstream treat a scraper source like an OParl one (issue 8). Ids are the stable page
 * URLs; `type` is the schema URI. Facts OParl has no field for, and names where OParl wants a URL we do
 * not have, go into `mandari:`-prefixed extension fields (OParl allows vendor extensions).
 *
 * `modified` is NOT set here: HTML pages carry no modification time, so the engine stamps the time it
 * saw the content change (issue 8) — content hashes are taken without it.
 *
 * `mode`: `owner` objects are (re)written whenever their content changes; `stub` objects (a committee
 * named on a meeting page, a person on a roster) are only created when the mirror has none, so the
 * page that owns the object (au020, kp020) is never overwritten by a thinner mention.
 */

export const OPARL_SCHEMA = 'https://schema.oparl.org/1.1/';

export const OPARL_TYPES = {
  body: 'Body',
  organization: 'Organization',
  person: 'Person',
  membership: 'Membership',
  meeting: 'Meeting',
  agendaitem: 'AgendaItem',
  paper: 'Paper',
  consultation: 'Consultation',
  file: 'File',
  location: 'Location',
} as const;

export type MirrorTypeName = keyof typeof OPARL_TYPES;

export interface ShapedObject {
  /** Lower-case OParl type name (the mirror's `type`). */
  type: MirrorTypeName;
  id: string;
  object: OParlObject;
  mode: 'owner' | 'stub';
}

export interface ShapeContext {
  bodyId: string;
}

function typeUri(type: MirrorTypeName): string {
  return `${OPARL_SCHEMA}${OPARL_TYPES[type]}`;
}

function compact<T extends Record<string, unknown>>(obj: T): T {
  for (const key of Object.keys(obj)) {
    const v = obj[key];
    if (v === undefined || (Array.isArray(v) && v.length === 0) || v === '') delete obj[key];
  }
  return obj;
}

export function shapeBody(input: {
  id: string;
  name: string;
  web: string;
  product: ScraperProduct;
  version?: string;
}): ShapedObject {
  return {
    type: 'body',
    id: input.id,
    mode: 'owner',
    object: compact({
      id: input.id,
      type: typeUri('body'),
      name: input.name,
      web: input.web,
      'mandari:scraper': compact({ product: input.product, version: input.version }),
    }),
  };
}

/** OParl `File` from a parsed document. Temporary links are left out (they would churn the hash). */
export function shapeFile(
  file: ParsedFile,
  owner: { meeting?: string; paper?: string; agendaItem?: string },
): ShapedObject {
  const object: OParlObject = compact({
    id: file.id,
    type: typeUri('file'),
    name: file.name,
    accessUrl: file.accessUrl,
    downloadUrl: file.accessUrl,
    date: file.date?.slice(0, 10),
    meeting: owner.meeting ? [owner.meeting] : undefined,
    paper: owner.paper ? [owner.paper] : undefined,
    agendaItem: owner.agendaItem ? [owner.agendaItem] : undefined,
    'mandari:category': file.category,
    'mandari:sourceTimestamp': file.date,
    'mandari:accessNote':
      file.accessUrl === undefined
        ? 'The source offers this file only through a link valid for one visitor session; no stable address.'
        : undefined,
  });
  return { type: 'file', id: file.id, object, mode: 'owner' };
}

export function shapeOrganizationStub(ref: Ref, kind: OrganizationKind, ctx: ShapeContext): ShapedObject {
  return {
    type: 'organization',
    id: ref.id,
    mode: 'stub',
    object: compact({
      id: ref.id,
      type: typeUri('organization'),
      body: ctx.bodyId,
      name: ref.name ?? ref.key,
      organizationType: organizationType(kind),
      web: ref.id,
    }),
  };
}

function organizationType(kind: OrganizationKind): string {
  return kind === 'faction' ? 'Fraktion' : kind === 'committee' ? 'Gremium' : 'Sonstiges';
}

function agendaItemObject(item: ParsedAgendaItem, meetingId: string): OParlObject {
  return compact({
    id: item.id,
    type: typeUri('agendaitem'),
    meeting: meetingId,
    number: item.number,
    order: item.order,
    name: item.name,
    public: item.public,
    result: item.result,
    consultation: item.paper ? consultationId(item.paper.id, meetingId) : undefined,
    auxiliaryFile: item.files.map((f) => shapeFile(f, { agendaItem: item.id }).object),
    web: item.detailUrl,
    'mandari:paper': item.paper?.id,
    'mandari:paperReference': item.paper?.reference,
    'mandari:reporter': item.reporter,
    'mandari:voteText': item.vote,
  });
}

/** The key of the meeting in a consultation id (its record number, whatever the URL form). */
function consultationId(paperId: string, meetingId: string): string {
  const key = /(\d+)(?!.*\d)/.exec(meetingId)?.[1] ?? meetingId;
  return `${paperId}#consultation-${key}`;
}

/**
 * Meeting (+ its location, files, agenda items and a committee stub) from the calendar row and, when
 * fetched, the meeting page. The row is always current (the page is fetched when the row changed);
 * cancellation is a calendar fact ("ENTFÄLLT!").
 */
export function shapeMeeting(
  row: CalendarRow | undefined,
  detail: ParsedMeeting | undefined,
  ctx: ShapeContext,
): ShapedObject[] {
  const id = detail?.id ?? row?.meetingId;
  if (id === undefined) return [];
  const date = detail?.date ?? row?.date;
  const startTime = detail?.startTime ?? row?.startTime;
  const endTime = detail?.endTime ?? row?.endTime;
  const organization = detail?.organization ?? row?.organization;
  const out: ShapedObject[] = [];
  const room = detail?.room ?? row?.room;
  let location: OParlObject | undefined;
  if (room || detail?.address) {
    location = compact({
      id: `${id}#location`,
      type: typeUri('location'),
      description: [room, detail?.address].filter(Boolean).join(', '),
      room,
      streetAddress: detail?.address,
      meeting: [id],
    });
    out.push({ type: 'location', id: location.id as string, object: location, mode: 'owner' });
  }
  const files = (detail?.files ?? []).map((f) => shapeFile(f, { meeting: id }));
  const byRole = (role: ParsedFile['role']) =>
    files.filter((_f, i) => detail?.files[i]?.role === role).map((f) => f.object);
  const agendaItems = (detail?.agenda ?? []).map((item) => agendaItemObject(item, id));
  const meeting = compact({
    id,
    type: typeUri('meeting'),
    name: (detail?.name || row?.name) ?? id,
    start: berlinDateTime(date, startTime),
    end: endTime ? berlinDateTime(date, endTime) : undefined,
    cancelled: row?.cancelled ? true : undefined,
    location,
    organization: organization ? [organization.id] : undefined,
    invitation: byRole('invitation')[0],
    resultsProtocol: byRole('resultsProtocol')[0],
    verbatimProtocol: byRole('verbatimProtocol')[0],
    auxiliaryFile: [
      ...byRole('auxiliary'),
      ...byRole('invitation').slice(1),
      ...byRole('resultsProtocol').slice(1),
      ...byRole('verbatimProtocol').slice(1),
    ],
    agendaItem: agendaItems,
    web: detail?.id ?? row?.detailUrl,
    'mandari:organizationName': organization
      ? undefined
      : (detail?.organizationName ?? row?.organizationName),
    'mandari:publicity': detail?.publicity,
  });
  out.unshift({ type: 'meeting', id, object: meeting, mode: 'owner' });
  out.push(...files);
  for (const item of agendaItems) {
    out.push({ type: 'agendaitem', id: item.id as string, object: item, mode: 'owner' });
    for (const f of (item.auxiliaryFile as OParlObject[] | undefined) ?? []) {
      if (!out.some((o) => o.id === f.id))
        out.push({ type: 'file', id: f.id as string, object: f, mode: 'owner' });
    }
  }
  if (organization) out.push(shapeOrganizationStub(organization, 'committee', ctx));
  return out;
}

/** An agenda item with what its own page (ALLRIS to020) adds: minutes, resolution, vote. */
export function mergeAgendaItemDetail(item: OParlObject, detail: ParsedAgendaItemDetail): OParlObject {
  return compact({
    ...item,
    result: detail.result ?? item.result,
    resolutionText: detail.resolutionText,
    'mandari:minutesText': detail.minutesText,
    'mandari:voteText': detail.voteText ?? item['mandari:voteText'],
  });
}

export function shapePaper(paper: ParsedPaper, ctx: ShapeContext): ShapedObject[] {
  const files = [...(paper.mainFile ? [paper.mainFile] : []), ...paper.files].map((f) =>
    shapeFile(f, { paper: paper.id }),
  );
  const consultations = paper.consultations.map((c, i) =>
    compact({
      id: c.meeting ? consultationId(paper.id, c.meeting.id) : `${paper.id}#consultation-step-${i + 1}`,
      type: typeUri('consultation'),
      paper: paper.id,
      meeting: c.meeting?.id,
      role: c.role,
      'mandari:organizationName': c.organizationName,
      'mandari:state': c.state,
      'mandari:date': c.date,
    }),
  );
  const object = compact({
    id: paper.id,
    type: typeUri('paper'),
    body: ctx.bodyId,
    name: paper.name,
    reference: paper.reference,
    date: paper.date,
    paperType: paper.paperType,
    relatedPaper: paper.relatedPapers.map((r) => r.id),
    mainFile: paper.mainFile ? files[0]?.object : undefined,
    auxiliaryFile: files.slice(paper.mainFile ? 1 : 0).map((f) => f.object),
    consultation: consultations,
    web: paper.id,
    'mandari:underDirectionOfName': paper.underDirectionOf,
    'mandari:originatorNames': paper.originators,
    'mandari:publicity': paper.publicity,
  });
  const out: ShapedObject[] = [{ type: 'paper', id: paper.id, object, mode: 'owner' }, ...files];
  for (const c of consultations)
    out.push({ type: 'consultation', id: c.id as string, object: c, mode: 'owner' });
  return out;
}

export function membershipId(organizationId: string, personKey: string): string {
  return `${organizationId}#member-${personKey}`;
}

export function shapeOrganization(org: ParsedOrganization, ctx: ShapeContext): ShapedObject[] {
  const memberships = org.memberships.map((m) =>
    compact({
      id: membershipId(org.id, m.key ?? m.person.key),
      type: typeUri('membership'),
      person: m.person.id,
      organization: org.id,
      role: m.role,
      votingRight: m.votingRight,
      startDate: m.startDate,
      endDate: m.endDate,
      'mandari:onBehalfOfName': m.onBehalfOfName,
      'mandari:membershipKind': m.kind,
    }),
  );
  const object = compact({
    id: org.id,
    type: typeUri('organization'),
    body: ctx.bodyId,
    name: org.name,
    organizationType: organizationType(org.kind),
    membership: memberships.map((m) => m.id as string),
    web: org.id,
    'mandari:memberCount': org.memberCount,
  });
  const out: ShapedObject[] = [{ type: 'organization', id: org.id, object, mode: 'owner' }];
  for (const m of memberships) out.push({ type: 'membership', id: m.id as string, object: m, mode: 'owner' });
  for (const m of org.memberships)
    if (!out.some((o) => o.type === 'person' && o.id === m.person.id))
      out.push(shapePersonStub(m.person, ctx));
  return out;
}

export function shapePersonStub(ref: Ref, ctx: ShapeContext): ShapedObject {
  const raw = ref.name ?? ref.key;
  const parts = splitPersonName(raw);
  return {
    type: 'person',
    id: ref.id,
    mode: 'stub',
    object: compact({
      id: ref.id,
      type: typeUri('person'),
      body: ctx.bodyId,
      name: displayPersonName(raw),
      familyName: parts.familyName,
      givenName: parts.givenName,
      title: parts.title ? [parts.title] : undefined,
      web: ref.id,
    }),
  };
}

export function shapePerson(person: ParsedPerson, ctx: ShapeContext): ShapedObject[] {
  const object = compact({
    id: person.id,
    type: typeUri('person'),
    body: ctx.bodyId,
    name: person.name,
    familyName: person.familyName,
    givenName: person.givenName,
    formOfAddress: person.formOfAddress,
    title: person.title ? [person.title] : undefined,
    web: person.id,
    'mandari:organizations': person.memberships.map((m) => m.organization.id),
  });
  const out: ShapedObject[] = [{ type: 'person', id: person.id, object, mode: 'owner' }];
  for (const m of person.memberships) out.push(shapeOrganizationStub(m.organization, m.kind, ctx));
  return out;
}

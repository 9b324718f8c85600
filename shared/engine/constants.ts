/**
 * Names and numbers of the object model every source kind shares (OParl API or scraped HTML): the lists
 * a Body has, the references between types, the zone council times are in, the placeholders read as
 * absent, the write fan-out.
 */

/**
 * The per-body lists, keyed by our short list name, with the Body field that points at each (OParl 1.0
 * has only the four mandatory ones; 1.1 adds the rest) and the OParl type of their objects.
 */
export const LIST_CATALOGUE = [
  { list: 'organization', bodyField: 'organization', type: 'organization', mandatory: true },
  { list: 'person', bodyField: 'person', type: 'person', mandatory: true },
  { list: 'meeting', bodyField: 'meeting', type: 'meeting', mandatory: true },
  { list: 'paper', bodyField: 'paper', type: 'paper', mandatory: true },
  // OParl 1.1 `legislativeTermList`; 1.0 embeds the terms in the Body only (mirrored as embedded objects).
  { list: 'legislativeTerm', bodyField: 'legislativeTermList', type: 'legislativeterm', mandatory: false },
  { list: 'membership', bodyField: 'membership', type: 'membership', mandatory: false },
  { list: 'agendaItem', bodyField: 'agendaItem', type: 'agendaitem', mandatory: false },
  { list: 'consultation', bodyField: 'consultation', type: 'consultation', mandatory: false },
  { list: 'file', bodyField: 'file', type: 'file', mandatory: false },
  { list: 'location', bodyField: 'locationList', type: 'location', mandatory: false },
] as const;

export type ListName = (typeof LIST_CATALOGUE)[number]['list'];
export type ListEntry = (typeof LIST_CATALOGUE)[number];

/** SCH-12: organization, person, meeting and paper are never skipped. */
export const MANDATORY_LISTS: readonly ListName[] = LIST_CATALOGUE.filter((l) => l.mandatory).map(
  (l) => l.list,
);

/** All council times of day are Europe/Berlin (SPEC preamble). */
export const ZONE = 'Europe/Berlin';

/** Placeholders vendors write where a value is unknown (CC e-gov: "N/A"); read as absent. */
export const PLACEHOLDER_VALUES: readonly string[] = ['N/A', 'n/a', 'NA', '-', ''];

/** Mirror writes of one page run side by side (they are independent); requests never do (RATE-3). */
export const WRITE_CONCURRENCY = 8;

/**
 * Per type: the reference properties and the type they point to (OParl 1.1 schema `references`) — a URL,
 * a list of URLs or the embedded object itself. The API rewrites them (shared/mirror-api); a takedown
 * follows a child's back-references (a file's `paper`, `meeting`, `agendaItem`) to the objects embedding it.
 */
export const REFERENCES: Record<string, Record<string, string>> = {
  agendaitem: {
    meeting: 'meeting',
    consultation: 'consultation',
    resolutionFile: 'file',
    auxiliaryFile: 'file',
  },
  body: {
    system: 'system',
    legislativeTerm: 'legislativeterm',
    location: 'location',
    mainOrganization: 'organization',
  },
  consultation: {
    paper: 'paper',
    agendaItem: 'agendaitem',
    meeting: 'meeting',
    organization: 'organization',
  },
  file: {
    masterFile: 'file',
    derivativeFile: 'file',
    meeting: 'meeting',
    agendaItem: 'agendaitem',
    person: 'person',
    paper: 'paper',
  },
  legislativeterm: { body: 'body' },
  location: {
    bodies: 'body',
    organizations: 'organization',
    persons: 'person',
    meetings: 'meeting',
    papers: 'paper',
  },
  meeting: {
    location: 'location',
    organization: 'organization',
    participant: 'person',
    invitation: 'file',
    resultsProtocol: 'file',
    verbatimProtocol: 'file',
    auxiliaryFile: 'file',
    agendaItem: 'agendaitem',
  },
  membership: { person: 'person', organization: 'organization', onBehalfOf: 'organization' },
  organization: {
    body: 'body',
    membership: 'membership',
    subOrganizationOf: 'organization',
    location: 'location',
    externalBody: 'body',
  },
  paper: {
    body: 'body',
    relatedPaper: 'paper',
    superordinatedPaper: 'paper',
    subordinatedPaper: 'paper',
    mainFile: 'file',
    auxiliaryFile: 'file',
    location: 'location',
    originatorPerson: 'person',
    underDirectionOf: 'organization',
    originatorOrganization: 'organization',
    consultation: 'consultation',
  },
  person: {
    body: 'body',
    location: 'location',
    locationObject: 'location',
    membership: 'membership',
    image: 'file',
  },
};

// Word lists for the generated dataset: a few values picked from the OParl fixtures (see
// data/SOURCE.md for origin and licence) plus invented German council vocabulary.
import mst from './data/meine-stadt-transparent.json' with { type: 'json' };
import spec from './data/oparl-spec-examples.json' with { type: 'json' };

interface PickFile {
  files: Record<string, Record<string, unknown>>;
}

export interface CopiedValue {
  /** File in data/. */
  dataFile: string;
  /** Fixture path inside the OParl examples corpus (`fixtures/oparl-examples/` of the corpora, outside the repository). */
  fixture: string;
  /** RFC 6901 JSON pointer into the fixture. */
  pointer: string;
  value: unknown;
}

const PICK_FILES: Record<string, PickFile> = {
  'oparl-spec-examples.json': spec as PickFile,
  'meine-stadt-transparent.json': mst as PickFile,
};

/** Every copied value with its origin, for the provenance test. */
export const COPIED_VALUES: CopiedValue[] = Object.entries(PICK_FILES).flatMap(([dataFile, data]) =>
  Object.entries(data.files).flatMap(([fixture, values]) =>
    Object.entries(values).map(([pointer, value]) => ({ dataFile, fixture, pointer, value })),
  ),
);

function pick(fixture: string, pointer: string): unknown {
  const found = COPIED_VALUES.find((v) => v.fixture === fixture && v.pointer === pointer);
  // A typo here should fail loudly at import time, not produce `undefined` fields in the dataset.
  if (!found) throw new Error(`fake-council: no copied value ${fixture}#${pointer}`);
  return found.value;
}

function str(fixture: string, pointer: string): string {
  const value = pick(fixture, pointer);
  if (typeof value !== 'string') throw new Error(`fake-council: ${fixture}#${pointer} is not a string`);
  return value;
}

function strs(fixture: string, pointer: string): string[] {
  const value = pick(fixture, pointer);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new Error(`fake-council: ${fixture}#${pointer} is not a string array`);
  }
  return value;
}

const S = 'oparl-spec-master/';

export const specValues = {
  systemName: str(`${S}System-01.json`, '/name'),
  systemContactName: str(`${S}System-01.json`, '/contactName'),
  systemVendor: str(`${S}System-01.json`, '/vendor'),
  systemProduct: str(`${S}System-01.json`, '/product'),
  bodyContactName: str(`${S}Body-01.json`, '/contactName'),
  bodyLicense: str(`${S}Body-01.json`, '/license'),
  bodyClassification: str(`${S}Body-01.json`, '/classification'),
  legislativeTermName: str(`${S}Body-01.json`, '/legislativeTerm/0/name'),
  organizationName: str(`${S}Organization-01.json`, '/name'),
  organizationShortName: str(`${S}Organization-01.json`, '/shortName'),
  organizationType: str(`${S}Organization-01.json`, '/organizationType'),
  organizationClassification: str(`${S}Organization-01.json`, '/classification'),
  posts: strs(`${S}Organization-01.json`, '/post'),
  keywords: strs(`${S}Organization-01.json`, '/keyword'),
  familyName: str(`${S}Person-01.json`, '/familyName'),
  givenName: str(`${S}Person-01.json`, '/givenName'),
  titles: strs(`${S}Person-01.json`, '/title'),
  formOfAddress: str(`${S}Person-01.json`, '/formOfAddress'),
  personStatus: strs(`${S}Person-01.json`, '/status'),
  membershipRoles: [
    str(`${S}Person-01.json`, '/membership/0/role'),
    str(`${S}Person-01.json`, '/membership/1/role'),
  ],
  meetingName: str(`${S}Meeting-01.json`, '/name'),
  locationDescription: str(`${S}Meeting-01.json`, '/location/description'),
  locationName: str(`${S}Meeting-01.json`, '/location/geojson/properties/name'),
  room: str(`${S}Location-01.json`, '/room'),
  invitationName: str(`${S}Meeting-01.json`, '/invitation/name'),
  protocolName: str(`${S}Meeting-01.json`, '/resultsProtocol/name'),
  verbatimProtocolName: str(`${S}Meeting-01.json`, '/verbatimProtocol/name'),
  supplementName: str(`${S}Meeting-01.json`, '/auxiliaryFile/0/name'),
  agendaItemName: str(`${S}Meeting-01.json`, '/agendaItem/0/name'),
  agendaItemResult: str(`${S}Meeting-01.json`, '/agendaItem/0/result'),
  resolutionText: str(`${S}Meeting-01.json`, '/agendaItem/0/resolutionText'),
  paperName: str(`${S}Paper-01.json`, '/name'),
  paperType: str(`${S}Paper-01.json`, '/paperType'),
  annexName: str(`${S}Paper-01.json`, '/mainFile/name'),
  fileText: str(`${S}Paper-01.json`, '/auxiliaryFile/0/text'),
  consultationRole: str(`${S}Paper-01.json`, '/consultation/0/role'),
  fileLicense: str(`${S}File-01.json`, '/fileLicense'),
};

const KR = 'mst-systems/Stadt Krefeld.json';
const LE = 'mst-systems/Stadt Leipzig.json';

/** Vendor-specific System fields as recorded from real servers (quirks included). */
export const vendorSystemFields: Record<'sternberg' | 'cc-egov', Record<string, unknown>> = {
  sternberg: {
    name: str(KR, '/name'),
    website: str(KR, '/website'),
    vendor: str(KR, '/vendor'),
    product: str(KR, '/product'),
    'STERNBERG:RIMVersion': str(KR, '/STERNBERG:RIMVersion'),
  },
  'cc-egov': {
    name: str(LE, '/name'),
    website: str(LE, '/website'),
    license: str(LE, '/license'),
    vendor: str(LE, '/vendor'),
    product: str(LE, '/product'),
  },
};

// Invented vocabulary (not from any fixture).

export const DEFAULT_BODY_NAMES = ['Stadt Musterstadt', 'Gemeinde Lütjenburg-Süd', 'Landkreis Beispielkreis'];

export const committees: Array<{ name: string; shortName: string; classification: string; type: string }> = [
  {
    name: specValues.organizationName,
    shortName: specValues.organizationShortName,
    classification: specValues.organizationClassification,
    type: specValues.organizationType,
  },
  { name: 'Rat der Stadt', shortName: 'Rat', classification: 'Hauptorgan', type: 'Gremium' },
  {
    name: 'Ausschuss für Umwelt, Klima und Grün',
    shortName: 'UKA',
    classification: 'Ausschuss',
    type: 'Gremium',
  },
  { name: 'Bau- und Planungsausschuss', shortName: 'BPA', classification: 'Ausschuss', type: 'Gremium' },
  { name: 'Schul- und Sportausschuss', shortName: 'SSA', classification: 'Ausschuss', type: 'Gremium' },
  { name: 'Jugendhilfeausschuss', shortName: 'JHA', classification: 'Ausschuss', type: 'Gremium' },
  { name: 'Fraktion Bürger für Musterstadt', shortName: 'BfM', classification: 'Fraktion', type: 'Fraktion' },
  { name: 'Ortsbeirat Nord', shortName: 'OBR Nord', classification: 'Ortsbeirat', type: 'Gremium' },
  { name: 'Seniorenbeirat', shortName: 'SenB', classification: 'Beirat', type: 'Gremium' },
  {
    name: 'Fachbereich Stadtentwicklung',
    shortName: 'FB 6',
    classification: 'Verwaltung',
    type: 'Verwaltungsbereich',
  },
];

export const givenNames: Array<{ name: string; formOfAddress: 'Frau' | 'Herr' }> = [
  { name: 'Anna', formOfAddress: 'Frau' },
  { name: 'Jürgen', formOfAddress: 'Herr' },
  { name: 'Özlem', formOfAddress: 'Frau' },
  { name: 'Karl-Heinz', formOfAddress: 'Herr' },
  { name: 'Birte', formOfAddress: 'Frau' },
  { name: 'Mehmet', formOfAddress: 'Herr' },
  { name: 'Søren', formOfAddress: 'Herr' },
  { name: 'Gisela', formOfAddress: 'Frau' },
  { name: 'Lukas', formOfAddress: 'Herr' },
];
export const familyNames = [
  'Schröder',
  'Weißmann',
  'Yılmaz',
  'Petersen',
  'Groß',
  'Nowak',
  'Jansen',
  'Möller',
];

export const agendaTitles = [
  specValues.agendaItemName,
  'Eröffnung der Sitzung und Feststellung der Beschlussfähigkeit',
  'Genehmigung der Niederschrift der letzten Sitzung',
  'Bebauungsplan Nr. 47 „Am Mühlenteich“ – Aufstellungsbeschluss',
  'Haushaltssatzung 2025 – Beratung',
  'Sanierung der Grundschule Lindenstraße',
  'Einwohnerfragestunde',
  'Mitteilungen der Verwaltung',
];

export const results = [
  specValues.agendaItemResult,
  'Beschlossen',
  'Abgelehnt',
  'Vertagt',
  'Zur Kenntnis genommen',
];

export const paperTypes = [
  specValues.paperType,
  'Beschlussvorlage',
  'Antrag',
  'Anfrage',
  'Mitteilungsvorlage',
];

export const paperSubjects = [
  'Radverkehrskonzept für die Innenstadt',
  'Zuschuss für den Sportverein Grün-Weiß',
  'Straßenbeleuchtung in der Mühlenstraße',
  'Umbau des Bürgerhauses zur Kita',
  'Friedhofsgebührensatzung – Änderung',
  'Bebauungsplan Nr. 47 „Am Mühlenteich“ – Satzungsbeschluss',
];

export const consultationRoles = [specValues.consultationRole, 'Vorberatung', 'Kenntnisnahme'];

export const streets = ['Marktplatz 1', 'Lindenstraße 12', 'Am Rathaus 3', 'Schulweg 7', 'Hafenstraße 22'];

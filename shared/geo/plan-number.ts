/**
 * Plan numbers (OTH-4), pure: what a geoportal states as a plan's number ("579", "45 a", "Nr. 101/1",
 * "579, 1. Änderung", North Rhine-Westphalia's `<Ortsteil>_<Nummer>_<Teil>_<Änderung>` such as
 * `_579__1` or `Albachten_7_A_`, and the INSPIRE id that puts `DE_<AGS>_` in front of it,
 * `DE_05515000__579__1`) parsed into the label people read, the key plans and paper titles are matched
 * by, and the change number.
 */

export interface PlanNumber {
  /** As stated, whitespace tidied, without "Nr." ("45 a"). */
  label: string;
  /** Lower case without spaces ("45a"): the match key for paper titles. */
  key: string;
  /** The change ("Änderung") number, when the plan is a change of an earlier one. */
  change?: string;
}

/** `DE_<AGS>_` in front of the state's form: the INSPIRE id of XPlanung exports. */
const INSPIRE_PREFIX = /^DE_\d{8}_/;
/**
 * NRW's form has exactly four fields, `<Ortsteil>_<Nummer>_<Teil>_<Änderung>`, empty ones kept
 * (`_579__1`, `Albachten_7_A_`). With more underscores the fields cannot be told apart, so such a
 * value is not read as a number at all rather than guessed.
 */
const NRW_FIELDS = 4;
/** Ortsteil: a place name or empty ("Albachten", "St. Mauritz", "Roxel-Süd"). */
const NRW_DISTRICT = /^(?:\p{L}[\p{L}\d .'-]*)?$/u;
/** Nummer: required, with a digit ("579", "7", "101/1", "45a"). */
const NRW_NUMBER = /^(?=.*\d)[\p{L}\d][\p{L}\d ./-]*$/u;
/** Teil: a short code or empty ("A", "II", "3"). */
const NRW_PART = /^[\p{L}\d]{0,4}$/u;
/** Änderung: the change's number or empty. */
const NRW_CHANGE = /^\d{0,4}$/;
/** The state's label joins up to three fields, so it may be longer than a free-text number. */
const NRW_LABEL_MAX = 60;
const FREE_LABEL_MAX = 20;
/** "579, 1. Änderung", "579 - 2. Änd.", "579 (1. Änderung)". */
const TRAILING_CHANGE = /^(.*?\d.*?)[\s,;(–-]*(\d+)\.\s*(?:Änderung|Änd\.?)\)?$/i;
/** "579 Ä1", "579/Ä 2". */
const SHORT_CHANGE = /^(.*?\d.*?)[\s/,-]*Ä\s*(\d+)$/i;
/** Words in front of the number that are not part of it. */
const LEADING_WORDS = /^(?:(?:vorhabenbezogener\s+)?bebauungsplan|b-plan|v?bp|nr\.?|nummer)\s*/i;

/** "45 a" → "45a"; "101 / 1" → "101/1". */
export function planKeyOf(label: string): string {
  return label.toLowerCase().replace(/\s+/g, '');
}

function tidy(value: string): string {
  let label = value.replace(/\s+/g, ' ').trim();
  for (let previous = ''; previous !== label; ) {
    previous = label;
    label = label.replace(LEADING_WORDS, '').trim();
  }
  return label;
}

const tidyField = (field: string) => field.replace(/\s+/g, ' ').trim();

/**
 * The state's form (already without an INSPIRE prefix). `fromInspireId`: an INSPIRE id may leave out
 * trailing empty fields (`DE_05515000__45a`), the bare form may not (`579_1` says nothing certain).
 */
function parseStateForm(value: string, fromInspireId: boolean): PlanNumber | undefined {
  const fields = value.split('_').map(tidyField);
  if (fields.length > NRW_FIELDS || (!fromInspireId && fields.length < NRW_FIELDS)) return undefined;
  const [district = '', number = '', part = '', change = ''] = fields;
  if (!NRW_DISTRICT.test(district) || !NRW_NUMBER.test(number)) return undefined;
  if (!NRW_PART.test(part) || !NRW_CHANGE.test(change)) return undefined;
  const label = [district, number, part].filter((f) => f !== '').join(' ');
  if (label.length > NRW_LABEL_MAX) return undefined;
  return { label, key: planKeyOf(label), ...(change === '' ? {} : { change: String(Number(change)) }) };
}

/** Undefined when nothing number-like is stated (no digit, or more than a short code). */
export function parsePlanNumber(raw: unknown): PlanNumber | undefined {
  if (typeof raw === 'number')
    return Number.isInteger(raw) && raw >= 0 ? parsePlanNumber(String(raw)) : undefined;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  const rest = text.replace(INSPIRE_PREFIX, '');
  const fromInspireId = rest !== text;
  if (rest.includes('_')) return parseStateForm(rest, fromInspireId);
  if (fromInspireId) return rest === '' ? undefined : parsePlanNumber(rest);
  let label = tidy(text);
  let change: string | undefined;
  const trailing = TRAILING_CHANGE.exec(label) ?? SHORT_CHANGE.exec(label);
  if (trailing) {
    label = tidy(trailing[1] ?? '');
    change = String(Number(trailing[2]));
  }
  if (!/\d/.test(label) || label.length > FREE_LABEL_MAX || !/^[\p{L}\d][\p{L}\d ./-]*$/u.test(label))
    return undefined;
  return { label, key: planKeyOf(label), ...(change === undefined ? {} : { change }) };
}

/**
 * The stable id of a plan: INSPIRE-style `DE_<AGS>__<key>[__<change>]` when the body's AGS is known,
 * else the geo source's id in its place.
 */
export function planIdOf(
  number: Pick<PlanNumber, 'key' | 'change'>,
  scope: { ags?: string; sourceId: string },
): string {
  const key = number.key.replace(/[^\p{L}\d-]+/gu, '-');
  const prefix = scope.ags === undefined ? scope.sourceId : `DE_${scope.ags}`;
  return `${prefix}__${key}${number.change === undefined ? '' : `__${number.change}`}`;
}

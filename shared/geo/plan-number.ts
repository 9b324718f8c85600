/**
 * Plan numbers (OTH-4), pure: what a geoportal states as a plan's number ("579", "45 a", "Nr. 101/1",
 * "579, 1. Änderung", an INSPIRE-style id `DE_05515000__579__1`) parsed into the label people read,
 * the key plans and paper titles are matched by, and the change number.
 */

export interface PlanNumber {
  /** As stated, whitespace tidied, without "Nr." ("45 a"). */
  label: string;
  /** Lower case without spaces ("45a"): the match key for paper titles. */
  key: string;
  /** The change ("Änderung") number, when the plan is a change of an earlier one. */
  change?: string;
}

/** `DE_<AGS>__<number>[__<change>]`: the id pattern of XPlanung/INSPIRE exports. */
const INSPIRE_ID = /^DE_(\d{8})__(.+?)(?:__(\d+))?$/;
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

/** Undefined when nothing number-like is stated (no digit, or more than a short code). */
export function parsePlanNumber(raw: unknown): PlanNumber | undefined {
  if (typeof raw === 'number')
    return Number.isInteger(raw) && raw >= 0 ? parsePlanNumber(String(raw)) : undefined;
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  const inspire = INSPIRE_ID.exec(text);
  if (inspire) {
    const base = parsePlanNumber(inspire[2]?.replace(/_/g, ' '));
    if (!base) return undefined;
    return inspire[3] === undefined ? base : { ...base, change: String(Number(inspire[3])) };
  }
  let label = tidy(text);
  let change: string | undefined;
  const trailing = TRAILING_CHANGE.exec(label) ?? SHORT_CHANGE.exec(label);
  if (trailing) {
    label = tidy(trailing[1] ?? '');
    change = String(Number(trailing[2]));
  }
  if (!/\d/.test(label) || label.length > 20 || !/^[\p{L}\d][\p{L}\d ./-]*$/u.test(label)) return undefined;
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

import { planKeyOf } from './plan-number';

/**
 * Plan references in paper titles (OTH-4), pure: "1. Änderung des Bebauungsplans Nr. 579",
 * "Bebauungspläne Nr. 12 und 13 – Aufhebung", "Vorhabenbezogener Bebauungsplan Nr. 612". Only
 * development plans (Bebauungspläne) count — "42. Änderung des Flächennutzungsplans" names the land
 * use plan, which has no boundary here.
 */

export interface PlanReference {
  key: string;
  change?: string;
}

/** The words for a development plan, in the forms titles use (singular, plural, genitive, short). */
const PLAN_WORD =
  '(?:(?:vorhabenbezogene[nrms]?\\s+)?(?:Bebauungspl(?:an(?:e?s)?|äne[n]?)|B-Pl(?:an(?:e?s)?|äne[n]?)|vBP|VEP|BP))';
/** One number: digits, an optional letter ("45 a", "45a"), an optional part ("101/1"). */
const NUMBER = '\\d+(?:\\s?[a-z](?![a-zäöüß]))?(?:\\/\\d+)?';
const NR = '(?:Nr\\.?|Nummer)?\\s*';
const LIST_SEPARATOR = '\\s*(?:,|und|sowie|&)\\s*';
const REFERENCE = new RegExp(
  `(?:(\\d+)\\.\\s*Änderung\\s+(?:des|der|zum|zur)\\s+)?\\b${PLAN_WORD}\\s*${NR}(${NUMBER}(?:${LIST_SEPARATOR}${NR}${NUMBER}(?![\\d.]))*)(?:\\s*[,(–-]?\\s*(\\d+)\\.\\s*Änderung)?`,
  'giu',
);
const NUMBER_ANYWHERE = new RegExp(NUMBER, 'giu');

/** Every plan a title names, in order, without repeats. */
export function planReferencesIn(title: string): PlanReference[] {
  const found: PlanReference[] = [];
  const seen = new Set<string>();
  for (const match of title.matchAll(REFERENCE)) {
    const numbers = [...(match[2] ?? '').matchAll(NUMBER_ANYWHERE)].map((m) => planKeyOf(m[0]));
    // A change number belongs to a single plan; with a list it is not clear which one it names.
    const changeRaw = numbers.length === 1 ? (match[1] ?? match[3]) : undefined;
    for (const key of numbers) {
      const ref: PlanReference =
        changeRaw === undefined ? { key } : { key, change: String(Number(changeRaw)) };
      const id = `${ref.key}__${ref.change ?? ''}`;
      if (seen.has(id)) continue;
      seen.add(id);
      found.push(ref);
    }
  }
  return found;
}

/** Does a reference name this plan? Without a change number it names the plan and all its changes. */
export function referenceMatches(ref: PlanReference, plan: { key: string; change?: string }): boolean {
  return ref.key === plan.key && (ref.change === undefined || ref.change === plan.change);
}

import type { RulesConstants } from '../../shared/docs/rules-constants';

/** Paths of every numeric value in the constants (arrays included). */
function numericLeaves(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (typeof value === 'number') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => numericLeaves(v, [...at, i]));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => numericLeaves(v, [...at, k]));
  }
  return [];
}

function withLeaf(c: RulesConstants, at: (string | number)[], change: (n: number) => number): RulesConstants {
  const copy = structuredClone(c) as unknown as Record<string | number, unknown>;
  let node = copy;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = at[at.length - 1] as string | number;
  node[last] = change(node[last] as number);
  return copy as unknown as RulesConstants;
}

/**
 * Every numeric constant a rendered document (the German page, the rule book) does NOT show: each
 * number is changed in turn, and an unchanged rendering names it. Also returns how many numbers were
 * tried, so a test can see that the constants were really walked.
 */
export function unrenderedConstants(
  c: RulesConstants,
  render: (c: RulesConstants) => string,
): { tried: number; unrendered: string[] } {
  const original = render(c);
  const leaves = numericLeaves(c);
  const unrendered = leaves
    .filter((at) => render(withLeaf(c, at, (n) => n * 3 + 7)) === original)
    .map((at) => at.join('.'));
  return { tried: leaves.length, unrendered };
}

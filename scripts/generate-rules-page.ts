import { RULES_BOOK_PATH, RULES_PAGE_PATH, writeRulesBook, writeRulesPage } from '../shared/docs';

/**
 * `npx tsx scripts/generate-rules-page.ts`: writes docs/abrufregeln.md (German, for municipalities) and
 * docs/rules.md (the rule book) from the constants the code uses. test/docs fails when a committed page
 * and the code disagree — run this after changing a published number or a rule's home and review the
 * diff together with the change.
 */
for (const [changed, path] of [
  [writeRulesPage(), RULES_PAGE_PATH],
  [writeRulesBook(), RULES_BOOK_PATH],
] as const) {
  process.stdout.write(`${changed ? 'wrote' : 'unchanged:'} ${path}\n`);
}

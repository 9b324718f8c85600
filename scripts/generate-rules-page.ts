import { RULES_PAGE_PATH, writeRulesPage } from '../shared/docs/generate';

/**
 * `npx tsx scripts/generate-rules-page.ts`: writes docs/abrufregeln.md from the constants the code uses.
 * test/docs fails when the committed page and the code disagree — run this after changing a published
 * number and review the page's diff together with the change.
 */
const changed = writeRulesPage();
process.stdout.write(`${changed ? 'wrote' : 'unchanged:'} ${RULES_PAGE_PATH}\n`);

/**
 * The rules page generator (docs/rules.md, docs/abrufregeln.md from SPEC and the rule constants). Other folders import this front door only
 * (test/repo/front-doors.test.ts).
 */
export { RULES_BOOK_PATH, RULES_PAGE_PATH, writeRulesBook, writeRulesPage } from './generate';

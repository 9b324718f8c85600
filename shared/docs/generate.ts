import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderRulesBook } from './rules-book';
import { collectRulesConstants } from './rules-constants';
import { renderRulesPage } from './rules-page';

/** docs/abrufregeln.md, the published page generated from the code's constants. */
export const RULES_PAGE_PATH = join(
  fileURLToPath(new URL('../..', import.meta.url)),
  'docs',
  'abrufregeln.md',
);

/** docs/rules.md, the project's rule book in English, generated from the same constants. */
export const RULES_BOOK_PATH = join(RULES_PAGE_PATH, '..', 'rules.md');

/** The page as the code's constants render it now. */
export function currentRulesPage(): string {
  return renderRulesPage(collectRulesConstants());
}

/** The rule book as the code's constants render it now. */
export function currentRulesBook(): string {
  return renderRulesBook(collectRulesConstants());
}

/** Writes the rule book; returns whether it changed. */
export function writeRulesBook(path = RULES_BOOK_PATH): boolean {
  return writeIfChanged(path, currentRulesBook());
}

/** Writes the page; returns whether it changed. */
export function writeRulesPage(path = RULES_PAGE_PATH): boolean {
  return writeIfChanged(path, currentRulesPage());
}

function writeIfChanged(path: string, page: string): boolean {
  let before: string | undefined;
  try {
    before = readFileSync(path, 'utf8');
  } catch {
    before = undefined;
  }
  if (before === page) return false;
  writeFileSync(path, page);
  return true;
}

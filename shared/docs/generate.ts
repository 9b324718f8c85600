import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { collectRulesConstants } from './rules-constants';
import { renderRulesPage } from './rules-page';

/** docs/abrufregeln.md, the published page generated from the code's constants. */
export const RULES_PAGE_PATH = join(
  fileURLToPath(new URL('../..', import.meta.url)),
  'docs',
  'abrufregeln.md',
);

/** The page as the code's constants render it now. */
export function currentRulesPage(): string {
  return renderRulesPage(collectRulesConstants());
}

/** Writes the page; returns whether it changed. */
export function writeRulesPage(path = RULES_PAGE_PATH): boolean {
  const page = currentRulesPage();
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

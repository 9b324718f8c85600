// The RIS HTML corpus outside the repository (found by test/support/corpus-dirs.ts; see the SOURCE.md
// there): five Hamburg ALLRIS 3 districts (raw ISO-8859-1 bytes, as served) and two trimmed SessionNet
// samples.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { risHtml } from '../corpus-dirs';

export const risHtmlDir = risHtml().dir;

export const ALLRIS_DISTRICTS = ['altona', 'eimsbuettel', 'hamburg_nord', 'harburg', 'wandsbek'] as const;
export type AllrisDistrict = (typeof ALLRIS_DISTRICTS)[number];
export const ALLRIS_PAGE_FILES = ['to010', 'to020', 'vo020', 'au020', 'fr020'] as const;
export type AllrisPageFile = (typeof ALLRIS_PAGE_FILES)[number];

export interface ManifestEntry {
  name: string;
  base_url: string;
  document_id: string;
  meeting_id: string;
  agenda_item_id: string;
  committee_id: string;
  party_id: string;
}

export function hasRisHtmlFixtures(): boolean {
  return risHtml().present;
}

/** The raw bytes of one ALLRIS page, exactly as captured. */
export function allrisPage(district: AllrisDistrict, page: AllrisPageFile): Buffer {
  return readFileSync(path.join(risHtmlDir, 'allris', district, `${page}.html`));
}

export function sessionNetSample(name: 'si0040_oct2025' | 'si0057_sample'): Buffer {
  return readFileSync(path.join(risHtmlDir, 'sessionnet', `${name}.html`));
}

/**
 * `allris_manifest.yml`: two levels of `key: value` (district → fields). Read line by line — the file is
 * that simple, and no YAML library is a dependency of this project. Without the corpus every district
 * gets an empty entry, so suites built from the manifest are still collected — and skipped.
 */
export function allrisManifest(): Record<string, ManifestEntry> {
  if (!hasRisHtmlFixtures()) {
    const empty: ManifestEntry = {
      name: '',
      base_url: '',
      document_id: '',
      meeting_id: '',
      agenda_item_id: '',
      committee_id: '',
      party_id: '',
    };
    return Object.fromEntries(ALLRIS_DISTRICTS.map((d) => [d, empty]));
  }
  const text = readFileSync(path.join(risHtmlDir, 'allris', 'allris_manifest.yml'), 'utf8');
  const out: Record<string, Record<string, string>> = {};
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (raw.trim() === '' || raw.trimStart().startsWith('#')) continue;
    const top = /^([a-z_]+):\s*$/.exec(raw);
    if (top?.[1]) {
      current = {};
      out[top[1]] = current;
      continue;
    }
    const field = /^\s+([a-z_]+):\s*(.+?)\s*$/.exec(raw);
    if (field?.[1] && field[2] !== undefined && current) current[field[1]] = field[2];
  }
  return out as unknown as Record<string, ManifestEntry>;
}

/** Variants of the SessionNet 5.5.4 "Layout 6" pages in the repository (test/fixtures/sessionnet-layout6). */
export type SessionNetLayout6Variant = 'asp' | 'php';

const layout6Dir = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../fixtures/sessionnet-layout6',
);

/**
 * One page of the Layout-6 fixtures (their SOURCE.md says what they are: pages in the markup of real
 * SessionNet 5.5.4 installations, `.asp` KP4 and `.php`, with placeholder content). In the repository,
 * so the suites that use them run in every clone.
 */
export function sessionNetLayout6Page(variant: SessionNetLayout6Variant, file: string): Buffer {
  return readFileSync(path.join(layout6Dir, variant, `${file}.html`));
}

/** The files of one variant (without `.html`), for the fake site. */
export function sessionNetLayout6Files(variant: SessionNetLayout6Variant): string[] {
  return readdirSync(path.join(layout6Dir, variant))
    .filter((f) => f.endsWith('.html'))
    .map((f) => f.slice(0, -'.html'.length));
}

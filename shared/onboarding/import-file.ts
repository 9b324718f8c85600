import { ImportFileError } from './errors';

/**
 * `sources import <file> [--activate]`: the list of sources to add, as JSON or CSV.
 *
 * JSON — an array, or `{ "sources": [ … ] }`; each entry a Sources item without the fields the tool
 * sets itself (`active`, `createdAt`, `updatedAt`, `updatedBy`):
 *   [{ "systemUrl": "https://ris.example.de/oparl/v1/system", "name": "Stadt Beispiel",
 *      "requestIntervalSeconds": 2 }]
 *
 * CSV — UTF-8, a header line naming the columns, separated by `,` or `;` (as spreadsheets write it),
 * fields may be double-quoted (`""` inside quotes is one quote), empty cells are "not set", lines
 * starting with `#` and empty lines are skipped. Columns: `systemUrl` (required), `sourceId`, `name`,
 * `kind`, `adapter`, `requestIntervalSeconds`, `fileFetching`, `userAgent`, `note`.
 *   systemUrl;name;requestIntervalSeconds
 *   https://ris.example.de/oparl/v1/system;Stadt Beispiel;2
 */

export interface ImportEntry {
  /** 1-based line (CSV) or entry number (JSON), for messages. */
  line: number;
  systemUrl: string;
  sourceId?: string;
  /** Further Sources item fields, validated by the schema when the source is added. */
  fields: Record<string, unknown>;
}

export const CSV_COLUMNS = [
  'systemUrl',
  'sourceId',
  'name',
  'kind',
  'adapter',
  'requestIntervalSeconds',
  'fileFetching',
  'userAgent',
  'note',
] as const;

/** Set by the tool, never by the file: activation is `--activate` only (ONB-3). */
const TOOL_FIELDS = ['active', 'createdAt', 'updatedAt', 'updatedBy'];

function entryFrom(raw: Record<string, unknown>, line: number): ImportEntry {
  for (const field of TOOL_FIELDS) {
    if (field in raw) {
      throw new ImportFileError(
        `entry ${line}: "${field}" is set by the tool${field === 'active' ? ' (use --activate, ONB-3)' : ''}`,
      );
    }
  }
  const { systemUrl, sourceId, ...fields } = raw;
  if (typeof systemUrl !== 'string' || systemUrl.trim() === '') {
    throw new ImportFileError(`entry ${line}: systemUrl is required`);
  }
  if (sourceId !== undefined && typeof sourceId !== 'string') {
    throw new ImportFileError(`entry ${line}: sourceId must be text`);
  }
  return {
    line,
    systemUrl: systemUrl.trim(),
    ...(sourceId !== undefined && sourceId.trim() !== '' ? { sourceId: sourceId.trim() } : {}),
    fields,
  };
}

/** Splits one CSV line (RFC 4180 quoting within a line; no line breaks inside fields). */
export function splitCsvLine(line: string, separator: string): string[] {
  const cells: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') {
        quoted = false;
      } else {
        cell += ch;
      }
    } else if (ch === '"' && cell.trim() === '') {
      quoted = true;
      cell = '';
    } else if (ch === separator) {
      cells.push(cell.trim());
      cell = '';
    } else {
      cell += ch;
    }
  }
  if (quoted) throw new ImportFileError(`unterminated quote in: ${line}`);
  cells.push(cell.trim());
  return cells;
}

function parseCsv(text: string): ImportEntry[] {
  const lines = text.split(/\r?\n/);
  let header: string[] | undefined;
  let separator = ',';
  const entries: ImportEntry[] = [];
  lines.forEach((rawLine, index) => {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) return;
    if (!header) {
      separator = line.includes(';') && !line.includes(',') ? ';' : ',';
      header = splitCsvLine(line, separator);
      for (const column of header) {
        if (!(CSV_COLUMNS as readonly string[]).includes(column)) {
          throw new ImportFileError(`unknown column "${column}" (known: ${CSV_COLUMNS.join(', ')})`);
        }
      }
      if (!header.includes('systemUrl')) throw new ImportFileError('the header needs a systemUrl column');
      return;
    }
    const cells = splitCsvLine(line, separator);
    if (cells.length > header.length) {
      throw new ImportFileError(`line ${index + 1}: ${cells.length} cells for ${header.length} columns`);
    }
    const raw: Record<string, unknown> = {};
    header.forEach((column, i) => {
      const value = cells[i];
      if (value !== undefined && value !== '') raw[column] = value;
    });
    entries.push(entryFrom(raw, index + 1));
  });
  if (!header) throw new ImportFileError('the CSV file has no header line');
  return entries;
}

/** Reads a JSON or CSV source list (JSON when the text starts with `[` or `{`). */
export function parseImportFile(text: string): ImportEntry[] {
  const trimmed = text.replace(/^\uFEFF/, '').trim();
  if (trimmed === '') throw new ImportFileError('the file is empty');
  if (trimmed.startsWith('[') || trimmed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(trimmed);
    } catch (error) {
      throw new ImportFileError(`not valid JSON: ${(error as Error).message}`);
    }
    const list = Array.isArray(parsed) ? parsed : (parsed as { sources?: unknown } | null)?.sources;
    if (!Array.isArray(list)) throw new ImportFileError('JSON must be an array or {"sources": [...]}');
    return list.map((raw, i) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
        throw new ImportFileError(`entry ${i + 1}: must be an object`);
      }
      return entryFrom(raw as Record<string, unknown>, i + 1);
    });
  }
  return parseCsv(trimmed);
}

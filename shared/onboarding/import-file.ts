import { parse } from 'csv-parse/sync';
import iconv from 'iconv-lite';
import { ImportFileError } from './errors';

/**
 * `sources import <file> [--activate]`: the list of sources to add, as JSON or CSV.
 *
 * JSON — an array, or `{ "sources": [ … ] }`; each entry a Sources item without the fields the tool
 * sets itself (`active`, `createdAt`, `updatedAt`, `updatedBy`):
 *   [{ "systemUrl": "https://ris.example.de/oparl/v1/system", "name": "Stadt Beispiel",
 *      "requestIntervalSeconds": 2 }]
 *
 * CSV — UTF-8 (Windows-1252 is accepted with a warning), a header line naming the columns, separated
 * by `,` or `;` (as spreadsheets write it), fields may be double-quoted (`""` inside quotes is one quote;
 * a quoted field may span lines), empty cells are "not set", lines starting with `#` and empty lines are
 * skipped. Columns: `systemUrl` (required), `sourceId`, `name`,
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

/** The separator a header line uses: `;` (German spreadsheets) when it has more of them than `,`. */
function separatorOf(text: string): ';' | ',' {
  const header =
    text.split(/\r?\n/).find((line) => line.trim() !== '' && !line.trimStart().startsWith('#')) ?? '';
  const count = (ch: string) => header.split(ch).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

/**
 * CSV through csv-parse (RFC 4180: quoted fields may hold separators, `""` and line breaks); a BOM,
 * comment lines (`#` at the start of a line — a `#` inside a URL stays) and empty lines are skipped.
 */
function parseCsv(text: string): ImportEntry[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    // One kind of line break: the parser counts a quoted CRLF as two lines, and a cell reads the same.
    records = parse(text.replace(/\r\n?/g, '\n'), {
      delimiter: separatorOf(text),
      bom: true,
      comment: '#',
      comment_no_infix: true,
      skip_empty_lines: true,
      trim: true,
      info: true,
      relax_column_count_less: true,
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (error) {
    throw new ImportFileError(`not valid CSV: ${(error as Error).message}`);
  }
  const [first, ...rows] = records;
  if (!first) throw new ImportFileError('the CSV file has no header line');
  const header = first.record;
  for (const column of header) {
    if (!(CSV_COLUMNS as readonly string[]).includes(column)) {
      throw new ImportFileError(`unknown column "${column}" (known: ${CSV_COLUMNS.join(', ')})`);
    }
  }
  if (!header.includes('systemUrl')) throw new ImportFileError('the header needs a systemUrl column');
  return rows.map(({ record, info }) => {
    // `info.lines` is the line the record ends on; a quoted field may span several.
    const line = info.lines - record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
    const raw: Record<string, unknown> = {};
    header.forEach((column, i) => {
      const value = record[i];
      if (value !== undefined && value !== '') raw[column] = value;
    });
    return entryFrom(raw, line);
  });
}

/** A source list as read from disk: entries, the encoding it was read in and what the operator should know. */
export interface ImportFile {
  entries: ImportEntry[];
  encoding: 'utf-8' | 'windows-1252';
  warnings: string[];
}

/**
 * Reads the bytes of a source list. UTF-8 strictly; bytes that are not UTF-8 are read as Windows-1252
 * — what German Excel writes for "CSV (Trennzeichen-getrennt)" — and the result says so, instead of
 * turning every umlaut into U+FFFD without a word.
 */
export function readImportFile(bytes: Uint8Array): ImportFile {
  let utf8: string | undefined;
  try {
    utf8 = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // not UTF-8: see below
  }
  if (utf8 !== undefined) return { entries: parseImportFile(utf8), encoding: 'utf-8', warnings: [] };
  return {
    entries: parseImportFile(iconv.decode(Buffer.from(bytes), 'windows-1252')),
    encoding: 'windows-1252',
    warnings: [
      'the file is not valid UTF-8; read as Windows-1252 (e.g. an Excel CSV export) — check the umlauts, or save it as "CSV UTF-8"',
    ],
  };
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
  // Untrimmed, so that line numbers in messages are the file's.
  return parseCsv(text.replace(/^\uFEFF/, ''));
}

// Validation against the OParl 1.1 JSON schemas (third-party, found only through corpora.ts; never
// copied into the repository). The schemas are draft-04 style with OParl's own keywords (`references`,
// `schema` for embedded objects), so ajv runs non-strict, and embedded objects are validated against
// their own type's schema by walking the value.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { oparlSchema } from './corpus-dirs';

const TYPE_URL = /^https:\/\/schema\.oparl\.org\/1\.1\/([A-Za-z]+)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export interface OParlValidator {
  /** Problems of one object and every object embedded in it (empty = valid); `where` names it. */
  object(value: unknown, where?: string): string[];
  /** Problems of a list page: its envelope and every object in `data`. */
  listPage(value: unknown, where?: string): string[];
}

export function oparlValidator(): OParlValidator {
  const dir = oparlSchema().dir;
  const ajv = new Ajv({ strict: false, allErrors: true, unicodeRegExp: false });
  ajv.addFormat('url', (s: string) => URL.canParse(s));
  ajv.addFormat('date', (s: string) => DATE.test(s));
  ajv.addFormat('date-time', (s: string) => DATE_TIME.test(s) && !Number.isNaN(Date.parse(s)));
  const byType = new Map<string, ValidateFunction>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const schema = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as Record<string, unknown>;
    delete schema.$schema;
    delete schema.id;
    byType.set(file.replace(/\.json$/, ''), ajv.compile(schema));
  }

  function object(value: unknown, where = '$'): string[] {
    const problems: string[] = [];
    const walk = (v: unknown, at: string, top: boolean) => {
      if (Array.isArray(v)) {
        v.forEach((x, i) => {
          walk(x, `${at}[${i}]`, false);
        });
        return;
      }
      if (!v || typeof v !== 'object') return;
      const rec = v as Record<string, unknown>;
      const type = typeof rec.type === 'string' ? TYPE_URL.exec(rec.type)?.[1] : undefined;
      if (type !== undefined) {
        const validate = byType.get(type);
        if (!validate) problems.push(`${at}: no schema for ${type}`);
        else if (!validate(rec))
          problems.push(
            ...(validate.errors ?? []).map((e) => `${at}${e.instancePath} ${e.message} (${type})`),
          );
      } else if (top) {
        problems.push(`${at}: not an OParl 1.1 object (type ${String(rec.type)})`);
      }
      for (const [k, x] of Object.entries(rec)) if (x && typeof x === 'object') walk(x, `${at}.${k}`, false);
    };
    walk(value, where, true);
    return problems;
  }

  return {
    object,
    listPage(value, where = '$') {
      const page = value as { data?: unknown; links?: unknown; pagination?: unknown };
      const problems: string[] = [];
      if (!Array.isArray(page?.data)) return [`${where}: list without data array`];
      if (!page.links || typeof page.links !== 'object') problems.push(`${where}: list without links`);
      page.data.forEach((o, i) => {
        problems.push(...object(o, `${where}.data[${i}]`));
      });
      return problems;
    },
  };
}

// Validation against the OParl 1.1 JSON schemas (third-party, found only through corpora.ts; never
// copied into the repository). The schemas are draft-04 style with OParl's own keywords (`references`,
// `schema` for embedded objects), so ajv runs non-strict, and embedded objects are validated against
// their own type's schema by walking the value.
//
// Deleted objects (`deleted: true`) are checked by a rule of their own, not by their type's schema:
// OParl 1.1 (“Gelöschte Objekte”) has a deleted object keep only its identity — `id`, `type`,
// `modified`, `deleted: true` (and `created`) — so the type's required content (a File's `accessUrl`,
// an AgendaItem's `order` …) must NOT be there, and the type schema would wrongly reject every File or
// AgendaItem stub. What the stub rule allows beyond that are the vendor properties the API puts on an
// origin's tombstone (`mandari:originId`, `mandari:source`; docs/mirror-api.md “Deletion semantics”);
// an operator's takedown (OPT-2) is served bare, without them. Anything else on a deleted object —
// a `name`, a file's URL — is content that a deletion must not carry, and a problem.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import { ORIGIN_ID_PROPERTY, SOURCE_PROPERTY } from '../../shared/mirror-api/constants';
import { oparlSchema } from './corpus-dirs';

const TYPE_URL = /^https:\/\/schema\.oparl\.org\/1\.1\/([A-Za-z]+)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** The rule for a `deleted: true` object (see above): identity only, nothing of the content. */
const DELETED_STUB = {
  type: 'object',
  required: ['id', 'type', 'deleted', 'modified'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'url' },
    type: { type: 'string', pattern: TYPE_URL.source },
    deleted: { const: true },
    modified: { type: 'string', format: 'date-time' },
    created: { type: 'string', format: 'date-time' },
    [ORIGIN_ID_PROPERTY]: { type: 'string' },
    [SOURCE_PROPERTY]: { type: 'string' },
  },
};

/** Which property an `additionalProperties` error is about (ajv names it only in its params). */
function paramsOf(params: Record<string, unknown>): string {
  return typeof params.additionalProperty === 'string' ? ` (${params.additionalProperty})` : '';
}

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
  const stub = ajv.compile(DELETED_STUB);
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
        const deleted = rec.deleted === true;
        const validate = byType.has(type) && deleted ? stub : byType.get(type);
        const rule = deleted ? `deleted ${type}` : type;
        if (!validate) problems.push(`${at}: no schema for ${type}`);
        else if (!validate(rec))
          problems.push(
            ...(validate.errors ?? []).map(
              (e) => `${at}${e.instancePath} ${e.message}${paramsOf(e.params)} (${rule})`,
            ),
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

// The target's own word (docs/explore.md): every answer validates against the response schema the target's own description
// document declares for that operation and status, with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Whatever
// shape a deployment chose, documenting one and serving another is a finding. The spec shows no payload shapes, so the
// document is the only yardstick; it does not require every status to be documented, so an undocumented status is skipped.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { templatePattern } from '../../contract/requests.js';
import { getPointer } from '../lib/openapi-schema.js';
import type { Answer, Finding, Step } from './exchange.js';
import { operationClause } from './projection.js';

type Json = Record<string, unknown>;

/** The clause a document/answer disagreement breaks: every URL is a public contract, declared in the published document. */
export const SCHEMA_CLAUSE = 'PUR-RULE-5';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
const essence = (type: string | undefined) => (type ?? '').split(';')[0]!.trim().toLowerCase();
const isJsonType = (type: string) => type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type) || type === '*/*';

/** Formats a response schema commonly uses; any other format is not judged (Ajv ignores unknown formats when not strict). */
const FORMATS: Record<string, RegExp | ((s: string) => boolean)> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
  email: /^[^\s@]+@[^\s@]+$/,
  uri: (s) => URL.canParse(s),
};

interface Template {
  doc: string;
  document: Json;
  path: string;
  regex: RegExp;
  params: number;
}

/** The path below the document's first server URL (`/api` of `https://host/api`), '' when it has none. */
function serverPrefix(document: Json): string {
  const url = (Array.isArray(document.servers) ? (document.servers[0] as Json | undefined)?.url : undefined) ?? '';
  if (typeof url !== 'string' || url === '') return '';
  try {
    return new URL(url, 'http://server.invalid').pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

function templatesOf(name: string, document: Json): Template[] {
  const paths = isObject(document.paths) ? document.paths : {};
  return Object.keys(paths).map((path) => {
    return { doc: name, document, path, regex: templatePattern(path, { trailingSlash: true }), params: (path.match(/\{/g) ?? []).length };
  });
}

/** The response object's JSON Pointer for a status: the exact code, then its `4XX` range, then `default`; `$ref` followed. */
function responsePointer(document: Json, operationPointer: string, status: number): string | undefined {
  const responses = getPointer(document, `${operationPointer}/responses`);
  if (!isObject(responses)) return undefined;
  const key = [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default'].find((k) => k in responses);
  if (key === undefined) return undefined;
  let pointer = `${operationPointer}/responses/${escape(key)}`;
  for (let depth = 0; depth < 10; depth++) {
    const node = getPointer(document, pointer);
    if (!isObject(node) || typeof node.$ref !== 'string' || !node.$ref.startsWith('#/')) break;
    pointer = node.$ref.slice(1);
  }
  return pointer;
}

/**
 * An OpenAPI 3.0 document's schemas in the 2020-12 dialect: `nullable: true` admits null, and the boolean
 * `exclusiveMinimum`/`exclusiveMaximum` of draft 4 become the numbers of 2020-12. A copy; everything else is left as is.
 */
export function fromOpenApi30(document: Json): Json {
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (!isObject(node)) return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = walk(v);
    if (out.nullable === true) {
      delete out.nullable;
      if (typeof out.type === 'string') out.type = [out.type, 'null'];
      else if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
      else if (out.type === undefined) return { anyOf: [out, { type: 'null' }] };
    }
    for (const [flag, bound] of [
      ['exclusiveMinimum', 'minimum'],
      ['exclusiveMaximum', 'maximum'],
    ] as const) {
      if (typeof out[flag] !== 'boolean') continue;
      if (out[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else delete out[flag];
    }
    return out;
  };
  return walk(document) as Json;
}

export interface SchemaOracle {
  check(step: Step, answer: Answer, index: number): Finding[];
  /** How many response schemas have been compiled so far (each once). */
  compiledCount(): number;
}

/**
 * The schema oracle over the target's description documents. Each response schema is compiled once. What it deliberately
 * does not judge: answers to a method and path no document describes (the negative space: wrong methods, unknown routes),
 * statuses the document does not declare, media types other than JSON, and formats other than those in FORMATS.
 */
export function createSchemaOracle(docs: { general: unknown; assistant?: unknown }): SchemaOracle {
  const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false, validateSchema: false });
  for (const [name, test] of Object.entries(FORMATS)) ajv.addFormat(name, test);
  const templates: Template[] = [];
  const prefixes = new Map<string, string>();
  for (const [name, document] of [
    ['general', docs.general],
    ['assistant', docs.assistant],
  ] as const) {
    if (!isObject(document)) continue;
    ajv.addSchema(String(document.openapi).startsWith('3.0') ? fromOpenApi30(document) : document, `doc:${name}`);
    templates.push(...templatesOf(name, document));
    prefixes.set(name, serverPrefix(document));
  }
  // Literal paths before templated ones (`/v1/me/identity` before `/v1/me/{x}`).
  templates.sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction | Error>();

  const validatorFor = (ref: string): ValidateFunction | Error => {
    let v = compiled.get(ref);
    if (v === undefined) {
      try {
        v = ajv.compile({ $ref: ref });
      } catch (e) {
        v = e instanceof Error ? e : new Error(String(e));
      }
      compiled.set(ref, v);
    }
    return v;
  };

  const findOperation = (step: Step): { template: Template; pointer: string } | undefined => {
    const method = step.method.toLowerCase();
    if (!METHODS.has(method)) return undefined;
    const path = step.path.split(/[?#]/)[0]!;
    for (const template of templates) {
      const prefix = prefixes.get(template.doc) ?? '';
      const candidates = prefix && path.startsWith(prefix + '/') ? [path, path.slice(prefix.length)] : [path];
      if (!candidates.some((p) => template.regex.test(p))) continue;
      const pointer = `/paths/${escape(template.path)}/${method}`;
      if (isObject(getPointer(template.document, pointer))) return { template, pointer };
    }
    return undefined;
  };

  return {
    compiledCount: () => compiled.size,
    check(step, answer, index) {
      const found = findOperation(step);
      if (!found) return [];
      const { template, pointer } = found;
      const responseAt = responsePointer(template.document, pointer, answer.status);
      if (responseAt === undefined) return [];
      const content = getPointer(template.document, `${responseAt}/content`);
      if (!isObject(content) || answer.text === '') return [];
      const type = essence(answer.headers['content-type']);
      const declared = Object.keys(content);
      const media =
        declared.find((k) => essence(k) === type) ?? (isJsonType(type) ? declared.find((k) => isJsonType(essence(k))) : undefined);
      const at = `${step.method} ${step.path} (${answer.status})`;
      const where = `${template.doc === 'general' ? '/openapi.json' : '/assistant/openapi.json'} ${template.path} ${step.method.toLowerCase()}`;
      const finding = (message: string, expected: unknown, actual: unknown): Finding[] => [
        { oracle: 'schema', clauses: [SCHEMA_CLAUSE, ...operationClause(step)], message, index, expected, actual },
      ];
      if (media === undefined) {
        if (!declared.some((k) => isJsonType(essence(k)))) return [];
        return finding(`${at}: answered as ${type || 'no media type'}, while ${where} declares ${declared.join(', ')}`, declared, type);
      }
      if (!isJsonType(essence(media))) return [];
      if (answer.json === undefined)
        return finding(`${at}: the body is not JSON, while ${where} declares ${media}`, media, answer.text.slice(0, 200));
      const schemaAt = `${responseAt}/content/${escape(media)}/schema`;
      if (getPointer(template.document, schemaAt) === undefined) return [];
      const validate = validatorFor(`doc:${template.doc}#${schemaAt.split('/').map(encodeURIComponent).join('/').replace(/%7E/gi, '~')}`);
      // A schema Ajv cannot compile (an external $ref, a dialect it does not know) judges nothing: no finding on a guess.
      if (validate instanceof Error) return [];
      if (validate(answer.json)) return [];
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`);
      return finding(
        `${at}: the body does not validate against the schema ${where} declares: ${errors.join('; ')}`,
        `#${schemaAt}`,
        errors,
      );
    },
  };
}

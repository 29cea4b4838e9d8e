// Pure helpers over a deployment's description documents: JSON Pointers (RFC 6901), a valid example generated from a JSON
// Schema (OpenAPI 3.1 / draft 2020-12 subset), and the members that carry a role (`x-shop-role`). No network, no engine.

export type JsonSchema = Record<string, unknown>;
export type Resolve = (ref: string) => JsonSchema | undefined;

const unescape = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');
const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

export function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new TypeError(`not a JSON Pointer: ${pointer}`);
  return pointer.slice(1).split('/').map(unescape);
}

export function getPointer(value: unknown, pointer: string): unknown {
  let node = value;
  for (const token of parsePointer(pointer)) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** Sets `pointer` in a copy of `value`, creating objects (or arrays, for numeric tokens) on the way. */
export function setPointer(value: unknown, pointer: string, v: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return v;
  const [head, ...rest] = tokens as [string, ...string[]];
  const index = /^\d+$/.test(head) ? Number(head) : undefined;
  const container: Record<string, unknown> | unknown[] =
    typeof value === 'object' && value !== null
      ? Array.isArray(value)
        ? [...value]
        : { ...(value as Record<string, unknown>) }
      : index !== undefined
        ? []
        : {};
  const child = (container as Record<string, unknown>)[head];
  (container as Record<string, unknown>)[head] = setPointer(child, rest.length ? '/' + rest.map(escape).join('/') : '', v);
  return container;
}

/** Follows `$ref` (and a one-member `allOf`, as generators emit) to the schema that says something. */
function deref(schema: JsonSchema, resolve: Resolve, depth = 0): JsonSchema {
  if (depth > 20) return schema;
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref);
    return target ? deref({ ...target, ...omit(schema, '$ref') }, resolve, depth + 1) : schema;
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length === 1)
    return deref({ ...(schema.allOf[0] as JsonSchema), ...omit(schema, 'allOf') }, resolve, depth + 1);
  return schema;
}

function omit(o: JsonSchema, key: string): JsonSchema {
  const { [key]: _gone, ...rest } = o;
  return rest;
}

/**
 * A value valid against `schema`, deterministic: the schema's own `examples`/`example`/`default`/`const`/first `enum`, else
 * built from its type (required members only, minimum lengths and bounds). Covers what request bodies use; it does not
 * solve `pattern`s (a schema with a pattern and no example gets a best effort).
 */
export function exampleFromSchema(input: JsonSchema, resolve: Resolve, depth = 0): unknown {
  const schema = deref(input, resolve);
  if (depth > 12) return null;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if ('example' in schema) return schema.example;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  for (const key of ['oneOf', 'anyOf'] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const firstNonNull = options.find((o) => (o as JsonSchema).type !== 'null') ?? options[0];
      return exampleFromSchema(firstNonNull as JsonSchema, resolve, depth + 1);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
    case undefined: {
      if (type === undefined && !schema.properties) return {};
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
      return Object.fromEntries(
        required.filter((k) => properties[k]).map((k) => [k, exampleFromSchema(properties[k]!, resolve, depth + 1)]),
      );
    }
    case 'array': {
      const n = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: n }, () => exampleFromSchema((schema.items ?? {}) as JsonSchema, resolve, depth + 1));
    }
    case 'integer':
    case 'number': {
      const min =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 1
            : undefined;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      const v = min !== undefined && min > -1e9 ? min : max !== undefined && max < 1 ? max : 1;
      return type === 'integer' ? Math.ceil(v) : v;
    }
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (schema.format === 'email') return 'conformance@shop.test';
      if (schema.format === 'uri') return 'https://shop.test/';
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
      const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
      return 'x'.repeat(Math.max(1, min));
    }
    default:
      return null;
  }
}

/** The JSON Pointer of every member that carries `x-shop-role`, by role (first one wins), through objects and arrays. */
/** Where each string value an `enum` (or `const`) of the schema allows sits, as JSON Pointers (the first place wins). */
export function enumsOf(input: JsonSchema, resolve: Resolve, prefix = '', depth = 0): Record<string, string> {
  const out: Record<string, string> = {};
  if (depth > 12) return out;
  const schema = deref(input, resolve);
  const values = [...(Array.isArray(schema.enum) ? schema.enum : []), ...('const' in schema ? [schema.const] : [])];
  if (prefix !== '') for (const v of values) if (typeof v === 'string') out[v] ??= prefix;
  const merge = (more: Record<string, string>) => {
    for (const [k, v] of Object.entries(more)) out[k] ??= v;
  };
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>))
    merge(enumsOf(sub, resolve, `${prefix}/${escape(name)}`, depth + 1));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) for (const o of schema[key] as JsonSchema[]) merge(enumsOf(o, resolve, prefix, depth + 1));
  }
  return out;
}

export function rolesOf(input: JsonSchema, resolve: Resolve, prefix = '', depth = 0): Record<string, string> {
  const out: Record<string, string> = {};
  if (depth > 12) return out;
  const schema = deref(input, resolve);
  const role = schema['x-shop-role'];
  if (typeof role === 'string' && prefix !== '') out[role] = prefix;
  const merge = (more: Record<string, string>) => {
    for (const [k, v] of Object.entries(more)) out[k] ??= v;
  };
  for (const [name, sub] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>))
    merge(rolesOf(sub, resolve, `${prefix}/${escape(name)}`, depth + 1));
  if (schema.items && typeof schema.items === 'object') merge(rolesOf(schema.items as JsonSchema, resolve, `${prefix}/0`, depth + 1));
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    if (Array.isArray(schema[key])) for (const o of schema[key] as JsonSchema[]) merge(rolesOf(o, resolve, prefix, depth + 1));
  }
  return out;
}

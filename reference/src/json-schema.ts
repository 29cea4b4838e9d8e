// The one zod → JSON Schema conversion of the project (draft 2020-12, as OpenAPI 3.1 takes it): the description documents'
// schemas and components, and the profile's published schema (scripts/gen-docs.ts, scripts/gen-fixture-profile.ts).
import { z } from 'zod';

export type Json = Record<string, unknown>;

/** One schema as JSON Schema, without `$schema` (the document says which dialect once). */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

/** Every schema registered with an id (z.globalRegistry), as components named by `uri(id)`, without `$schema`/`$id`. */
export function registryComponents(uri: (id: string) => string): Record<string, Json> {
  const all = z.toJSONSchema(z.globalRegistry, { target: 'draft-2020-12', io: 'output', uri, unrepresentable: 'any' }) as {
    schemas: Record<string, Json>;
  };
  for (const s of Object.values(all.schemas)) {
    delete s.$schema;
    delete s.$id;
  }
  return all.schemas;
}

/** A standalone JSON Schema document (with `$schema`) of what a user writes: the input side. */
export function inputSchemaDocument(schema: z.ZodType): Json {
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Json;
}

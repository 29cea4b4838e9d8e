// The one zod → JSON Schema conversion of the description documents (draft 2020-12, as OpenAPI 3.1 takes it).
import { z } from 'zod';

export type Json = Record<string, unknown>;

/** One schema as JSON Schema, without `$schema` (the document says which dialect once). */
export function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
  delete out.$schema;
  return out;
}

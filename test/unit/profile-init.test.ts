// `profile init` writes every field the suite reads: no capability, secret or budget left for the suite to skip on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { generateProfile } from '../../cli/profile-init.js';
import { profileSchema } from '../../contract/profile.js';

/** Every key the schema knows, at every depth of objects (arrays: their element's keys), as dotted paths. */
function schemaPaths(schema: z.ZodType, prefix = ''): string[] {
  const def = (schema as unknown as { def: { type: string; innerType?: z.ZodType; shape?: Record<string, z.ZodType> } }).def;
  if (def.type === 'optional' || def.type === 'nullable' || def.type === 'default') return schemaPaths(def.innerType!, prefix);
  if (def.type !== 'object') return [];
  return Object.entries((schema as z.ZodObject).shape).flatMap(([k, v]) => [
    `${prefix}${k}`,
    ...schemaPaths(v as z.ZodType, `${prefix}${k}.`),
  ]);
}

test('a fresh profile has every field of the schema set: every capability claimed, every secret and every budget present', async () => {
  const profile = profileSchema.parse(await generateProfile({ name: 'fresh', testOnly: true }));
  const missing = schemaPaths(profileSchema).filter((path) => {
    const value = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], profile);
    return value === undefined || value === null;
  });
  // Choices, not gaps: jwksUri null (the server reads the keys from the profile), conventions absent (the spec's and the
  // reference's conventions apply), data absent (the seed's own ids), audiences.callers absent (each caller kind's default
  // audience), no _comment.
  assert.deepEqual(
    missing.filter(
      (p) =>
        p !== 'jwksUri' && p !== '_comment' && !p.startsWith('data') && !p.startsWith('conventions') && !p.startsWith('audiences.callers'),
    ),
    [],
  );
  assert.ok(Object.values(profile.capabilities).every((c) => c === true));
  assert.equal(profile.rateLimits?.assistantSessionBudget, 100);
});

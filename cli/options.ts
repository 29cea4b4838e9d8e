// Option parsing shared by the commands: the shard option's schema, and the one usage line a failed parse prints
// (the option's flag and zod's message, never a stack).
import { z } from 'zod';
import { EXIT } from './exit.js';

/** `--shard i/n` (1 ≤ i ≤ n), as `run` and `self-test` take it. */
export const shardSchema = z
  .string()
  .regex(/^\d+\/\d+$/, 'i/n, like 1/3')
  .refine((s) => {
    const [i, n] = s.split('/').map(Number);
    return i! >= 1 && i! <= n!;
  }, 'i/n with 1 <= i <= n, like 1/3');

/** The entries of shard `i/n`: every n-th from the i-th, in the list's order (disjoint shards covering the list). */
export function shardOf<T>(list: readonly T[], shard: string): T[] {
  const [i, n] = shard.split('/').map(Number) as [number, number];
  return list.filter((_, k) => k % n === i - 1);
}

/** The one line a command prints for the first issue of a failed option parse: `shop-conformance <command>: --flag: message`. */
export function usageLine(command: string, error: z.ZodError): string {
  const i = error.issues[0]!;
  return `shop-conformance ${command}: --${String(i.path[0] ?? '').replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())}: ${i.message}\n`;
}

/** The options as `schema` parses them; else the usage line of the first issue on stderr, and exit 2 (usage). */
export function parseOptions<S extends z.ZodType>(command: string, schema: S, raw: unknown): z.output<S> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    process.stderr.write(usageLine(command, parsed.error));
    process.exit(EXIT.usage);
  }
  return parsed.data;
}

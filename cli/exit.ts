// Exit codes of every command, stated in one place (docs/cli.md).
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

/**
 * Exits once stdout and stderr have taken everything written: a long listing on a pipe may still be queued when
 * process.exit would cut it off.
 */
export async function exitAfterOutput(code: number): Promise<never> {
  await Promise.all([process.stdout, process.stderr].map((s) => new Promise<void>((done) => s.write('', () => done()))));
  process.exit(code);
}

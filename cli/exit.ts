// Exit codes of every command, stated in one place (docs/cli.md).
export const EXIT = { ok: 0, failed: 1, usage: 2, unreachable: 3 } as const;

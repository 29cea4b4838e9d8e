// After refusing an oversized body, read and discard the rest of it instead of closing at once: closing a socket that still
// has unread bytes makes the kernel reset the connection, and the client can lose the answer before reading it. The
// server's request timeout (30 s) bounds how long a client may keep sending.
import type { Request } from 'express';

export function discardRestOfBody(req: Request): void {
  req.removeAllListeners('data');
  req.on('data', () => undefined);
  req.resume();
}

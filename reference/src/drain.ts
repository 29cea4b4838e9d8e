// After refusing an oversized body, read and discard the rest of it instead of closing at once: closing a socket that still
// has unread bytes makes the kernel reset the connection, and the client can lose the answer before reading it. The
// server's request timeout (30 s) bounds how long a client may keep sending.
import type { Socket } from 'node:net';
import type { Request, Response } from 'express';

export function discardRestOfBody(req: Request): void {
  req.removeAllListeners('data');
  req.on('data', () => undefined);
  req.resume();
}

/** How long a connection closed after a 413 keeps reading (and dropping) what the client still sends, at most. */
export const LINGER_MS = 2000;

/**
 * A refused body's connection is not reused (`Connection: close`): the answer goes out at once, then the server half-closes
 * and stops reading, and closes for good once the client has closed or LINGER_MS have passed (a lingering close: closing a
 * socket with unread bytes resets it, and the reset could destroy the answer on its way). Until the answer is written
 * what arrives is dropped; after it, nothing more is read at all, so a client that goes on sending a refused body costs
 * neither memory nor CPU (the kernel's window fills and the client waits).
 */
export function closeAfterAnswer(req: Request, res: Response): void {
  discardRestOfBody(req);
  res.set('Connection', 'close');
  const socket = req.socket as Socket & { destroySoon?: () => void; _paused?: boolean };
  if (!socket || socket.destroyed) return;
  // Node ends a `Connection: close` exchange with destroySoon (end, then destroy once written): end only, and linger.
  socket.destroySoon = () => {
    socket.end();
    // The HTTP server's own way of holding a connection's input (as it does between pipelined requests): its readStart
    // leaves a socket marked `_paused` alone, so the request's dump after the answer cannot resume reading.
    socket._paused = true;
    socket.pause();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  };
}

// Event streams (text/event-stream, WHATWG HTML §9.2): the writer every streamed response uses. It writes the status and
// headers at once with a first `: keep-alive` comment, then events and comments; a `: keep-alive` comment goes out every
// `keepAliveMs` after it (spec, Events > Streaming, and Limits: every 15 seconds), whatever else is written in between.
// The first comment at once costs nothing and spares a client (and the suite's keep-alive check) a whole beat of waiting. The stream is closed by the writer's
// owner or by the client going away; either way every timer and listener is released exactly once.
import type { Response } from 'express';

export interface StreamEvent {
  /** The event `id` (a client's Last-Event-ID on reconnection). */
  id?: string | number;
  /** The event type; absent means `message`. */
  event?: string;
  /** Serialised as JSON unless it is already a string. */
  data: unknown;
}

export interface EventStream {
  send(event: StreamEvent): void;
  comment(text: string): void;
  /** Ends the response (no-op once closed). */
  close(): void;
  readonly closed: boolean;
  /** Resolves once the stream is closed, by close() or by the client. */
  readonly done: Promise<void>;
  /** Runs once when the stream closes (immediately when it already is). */
  onClose(fn: () => void): void;
}

export interface EventStreamOptions {
  keepAliveMs: number;
  status?: number;
  /** Extra response headers (e.g. DPoP-Nonce). */
  headers?: Record<string, string>;
}

/** One field line per line of the value: `data` may not carry raw line breaks (they would end the field). */
function fieldLines(name: string, value: string): string {
  return value
    .split(/\r\n|\r|\n/)
    .map((line) => `${name}: ${line}\n`)
    .join('');
}

/** The wire form of one event; exported for tests. */
export function formatEvent(e: StreamEvent): string {
  let out = '';
  if (e.id !== undefined) out += fieldLines('id', String(e.id).replace(/[\r\n\0]/g, ''));
  if (e.event !== undefined) out += fieldLines('event', e.event.replace(/[\r\n]/g, ''));
  out += fieldLines('data', typeof e.data === 'string' ? e.data : JSON.stringify(e.data));
  return out + '\n';
}

export const KEEP_ALIVE_COMMENT = ': keep-alive\n\n';

/** Starts an event stream on `res`: 200, `text/event-stream`, `Cache-Control: no-store`, headers flushed at once. */
export function openEventStream(res: Response, o: EventStreamOptions): EventStream {
  res.status(o.status ?? 200);
  res.set({
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    // No proxy buffering, no transformation: every keep-alive must reach the client when it is written.
    'X-Accel-Buffering': 'no',
    ...o.headers,
  });
  res.removeHeader('Content-Length');
  res.flushHeaders();
  res.socket?.setNoDelay(true);

  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const closers: (() => void)[] = [];
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));

  const finish = () => {
    if (closed) return;
    closed = true;
    if (timer) clearInterval(timer);
    res.off('close', finish);
    for (const fn of closers.splice(0)) {
      try {
        fn();
      } catch {
        // A cleanup failure must not keep the others from running.
      }
    }
    resolveDone();
  };

  const write = (chunk: string) => {
    if (closed) return;
    if (res.writableEnded || res.destroyed) {
      finish();
      return;
    }
    res.write(chunk);
  };

  res.on('close', finish);
  // [EVT-STREAM-1] a comment at once, in the same packet as the head where the socket allows, then the beat.
  write(KEEP_ALIVE_COMMENT);
  // A fixed beat, independent of the events: a client never waits longer than keepAliveMs for a keep-alive comment.
  timer = setInterval(() => write(KEEP_ALIVE_COMMENT), o.keepAliveMs);
  timer.unref?.();

  return {
    send: (e) => write(formatEvent(e)),
    comment: (text) =>
      write(
        `${text
          .split(/\r\n|\r|\n/)
          .map((line) => `: ${line}\n`)
          .join('')}\n`,
      ),
    close: () => {
      if (closed) return;
      if (!res.writableEnded && !res.destroyed) res.end();
      finish();
    },
    get closed() {
      return closed;
    },
    done,
    onClose(fn) {
      if (closed) fn();
      else closers.push(fn);
    },
  };
}

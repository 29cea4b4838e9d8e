// HTTP/1.1 exchanges over a raw socket, so that the fuzzer and the attack corpus can send what fetch() would refuse to:
// duplicate Host or Authorization headers, no Host, odd chunked framing, bytes that are not UTF-8, a body shorter than its
// Content-Length, bytes after a `Connection: close` request. Every answer on the connection is parsed (a second one is a
// finding), with the time the first one took.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
  /** Bytes of the body as sent (before de-chunking). */
  bodyBytes: number;
}

export type RawOutcome = { kind: 'answer'; answer: RawAnswer; extra: RawAnswer[]; firstMs: number } | { kind: 'no-answer'; reason: string };

export interface ExchangeOptions {
  timeoutMs: number;
  /** After the first complete answer, how long to wait for the server to close (or to write a second answer). */
  graceMs?: number;
  /** Bytes written after the request (on the same connection, once it is written). */
  trailing?: Buffer;
  /** The request's method, when HEAD (an answer to HEAD has no body whatever its Content-Length). */
  method?: string;
}

/** One request on a fresh connection; resolves with every answer read before the server closed or the time ran out. */
export function exchange(port: number, request: Buffer, o: ExchangeOptions | number): Promise<RawOutcome> {
  const opts: ExchangeOptions = typeof o === 'number' ? { timeoutMs: o } : o;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    let grace: NodeJS.Timeout | undefined;
    let firstMs = -1;
    const started = process.hrtime.bigint();
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(request);
      if (opts.trailing) socket.write(opts.trailing);
    });
    const finish = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      socket.destroy();
      const { answers } = parseAnswers(Buffer.concat(chunks), opts.method, true);
      const [answer, ...extra] = answers;
      resolve(
        answer ? { kind: 'answer', answer, extra, firstMs: firstMs < 0 ? elapsedMs(started) : firstMs } : { kind: 'no-answer', reason },
      );
    };
    const timer = setTimeout(() => finish('timeout'), opts.timeoutMs);
    socket.on('data', (b: Buffer) => {
      chunks.push(b);
      const all = Buffer.concat(chunks);
      // An event stream never ends: its head is enough.
      const head = all.subarray(0, 8192).toString('latin1');
      if (/\r\ncontent-type: text\/event-stream/i.test(head) && head.includes('\r\n\r\n')) return finish('stream');
      if (firstMs < 0 && parseAnswers(all, opts.method, false).answers.length > 0) {
        firstMs = elapsedMs(started);
        grace = setTimeout(() => finish('grace'), opts.graceMs ?? 300);
      }
    });
    socket.on('end', () => finish('closed'));
    socket.on('error', (err) => finish(`socket error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
  });
}

const elapsedMs = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

/** Complete answers in `bytes`, in order; `atEnd`: the connection closed, so a body without a length ends here. */
export function parseAnswers(bytes: Buffer, method: string | undefined, atEnd: boolean): { answers: RawAnswer[] } {
  const answers: RawAnswer[] = [];
  let rest = bytes;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const [statusLine, ...lines] = rest.subarray(0, end).toString('latin1').split('\r\n');
    const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
    if (!m) break;
    const status = Number(m[1]);
    const headers = new Map<string, string[]>();
    for (const line of lines) {
      const i = line.indexOf(':');
      if (i <= 0) continue;
      const name = line.slice(0, i).trim().toLowerCase();
      headers.set(name, [...(headers.get(name) ?? []), line.slice(i + 1).trim()]);
    }
    let after = rest.subarray(end + 4);
    // Interim answers (100 Continue for Expect: 100-continue) are not answers.
    if (status >= 100 && status < 200) {
      rest = after;
      continue;
    }
    let body: Buffer;
    let used: number;
    const chunked = (headers.get('transfer-encoding')?.[0] ?? '').toLowerCase().includes('chunked');
    const length = headers.get('content-length')?.[0];
    if (method === 'HEAD' || status === 204 || status === 304) {
      body = Buffer.alloc(0);
      used = 0;
    } else if (chunked) {
      const d = dechunk(after);
      if (!d.complete && !atEnd) break;
      body = d.body;
      used = d.used;
    } else if (length !== undefined) {
      const n = Number(length);
      if (after.length < n && !atEnd) break;
      body = after.subarray(0, n);
      used = Math.min(n, after.length);
    } else {
      if (!atEnd) break;
      body = after;
      used = after.length;
    }
    answers.push({ status, headers, body, bodyBytes: used });
    after = after.subarray(used);
    rest = after;
  }
  return { answers };
}

function dechunk(buf: Buffer): { body: Buffer; used: number; complete: boolean } {
  const out: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size)) break;
    if (size === 0) {
      const end = buf.indexOf('\r\n\r\n', eol);
      return { body: Buffer.concat(out), used: end < 0 ? buf.length : end + 4, complete: end >= 0 };
    }
    if (eol + 2 + size > buf.length) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return { body: Buffer.concat(out), used: buf.length, complete: false };
}

/** Writes a request: the request line, the headers in order (duplicates kept), and the body framed as asked. */
export function serialize(o: {
  method: string;
  target: string;
  version?: string;
  headers: [string, string][];
  body?: Buffer;
  framing?: Framing;
  /** With framing `declared`: the Content-Length written, whatever the body's length. */
  declaredLength?: number;
}): Buffer {
  const head = [`${o.method} ${o.target} ${o.version ?? 'HTTP/1.1'}`, ...o.headers.map(([k, v]) => `${k}: ${v}`)];
  const body = o.body ?? Buffer.alloc(0);
  const framing = o.framing ?? (body.length > 0 ? 'length' : 'none');
  if (framing === 'none') return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  if (framing === 'length' || framing === 'declared')
    return Buffer.concat([
      Buffer.from(
        `${head.join('\r\n')}\r\nContent-Length: ${framing === 'declared' ? (o.declaredLength ?? body.length) : body.length}\r\n\r\n`,
        'latin1',
      ),
      body,
    ]);
  head.push('Transfer-Encoding: chunked');
  const parts: Buffer[] = [Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1')];
  const size = framing === 'chunked-bytes' ? 1 : framing === 'chunked-odd' ? 7 : Math.max(1, body.length);
  for (let i = 0; i < body.length; i += size) {
    const piece = body.subarray(i, i + size);
    const hex = framing === 'chunked-odd' ? `00${piece.length.toString(16).toUpperCase()};ext=1` : piece.length.toString(16);
    parts.push(Buffer.from(`${hex}\r\n`, 'latin1'), piece, Buffer.from('\r\n', 'latin1'));
  }
  parts.push(Buffer.from(framing === 'chunked-odd' ? '0\r\nX-Trailer: 1\r\n\r\n' : '0\r\n\r\n', 'latin1'));
  return Buffer.concat(parts);
}

/** `declared`: a Content-Length of the caller's choice (over the cap, or longer than the bytes sent). */
export type Framing = 'none' | 'length' | 'declared' | 'chunked' | 'chunked-bytes' | 'chunked-odd';

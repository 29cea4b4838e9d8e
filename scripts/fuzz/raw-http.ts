// One HTTP/1.1 exchange over a raw socket, so that the fuzzer can send what fetch() would refuse to: duplicate Host or
// Authorization headers, no Host, odd chunked framing, bytes that are not UTF-8. Reads the answer until the server closes
// (every request says Connection: close) or the time runs out, and parses the status line, headers and body.
import net from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Map<string, string[]>;
  body: Buffer;
}

export type RawOutcome = { kind: 'answer'; answer: RawAnswer } | { kind: 'no-answer'; reason: string };

export function exchange(port: number, request: Buffer, timeoutMs: number): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
    const finish = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const answer = parseAnswer(Buffer.concat(chunks));
      resolve(answer ? { kind: 'answer', answer } : { kind: 'no-answer', reason });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (b: Buffer) => {
      chunks.push(b);
      // An event stream never ends: its head is enough.
      const head = Buffer.concat(chunks).toString('latin1');
      if (/\r\ncontent-type: text\/event-stream/i.test(head) && head.includes('\r\n\r\n')) finish('stream');
    });
    socket.on('end', () => finish('closed'));
    socket.on('error', (err) => finish(`socket error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
  });
}

function parseAnswer(bytes: Buffer): RawAnswer | undefined {
  // Interim answers (100 Continue for Expect: 100-continue) come first: skip them.
  while (/^HTTP\/1\.[01] 1\d\d /.test(bytes.subarray(0, 16).toString('latin1'))) {
    const interimEnd = bytes.indexOf('\r\n\r\n');
    if (interimEnd < 0) return undefined;
    bytes = bytes.subarray(interimEnd + 4);
  }
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (!m) return undefined;
  const headers = new Map<string, string[]>();
  for (const line of lines) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    headers.set(name, [...(headers.get(name) ?? []), line.slice(i + 1).trim()]);
  }
  let body = bytes.subarray(end + 4);
  if ((headers.get('transfer-encoding')?.[0] ?? '').toLowerCase().includes('chunked')) body = dechunk(body);
  return { status: Number(m[1]), headers, body };
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  while (at < buf.length) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** Writes a request: the request line, the headers in order (duplicates kept), and the body framed as asked. */
export function serialize(o: {
  method: string;
  target: string;
  version?: string;
  headers: [string, string][];
  body?: Buffer;
  framing?: Framing;
}): Buffer {
  const head = [`${o.method} ${o.target} ${o.version ?? 'HTTP/1.1'}`, ...o.headers.map(([k, v]) => `${k}: ${v}`)];
  const body = o.body ?? Buffer.alloc(0);
  const framing = o.framing ?? (body.length > 0 ? 'length' : 'none');
  if (framing === 'none') return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
  if (framing === 'length')
    return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'), body]);
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

export type Framing = 'none' | 'length' | 'chunked' | 'chunked-bytes' | 'chunked-odd';

// An event stream (text/event-stream) read incrementally, as the conversation checks read it, and the events and
// comments in what was read (WHATWG HTML §9.2).
import type { Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { errorOf } from '../../lib/expect/dpop.js';
import { type AssistantAgent } from './assistant.js';

export interface OpenStream {
  /** The response head. */
  res: { status: number; headers: Headers };
  /** ms from sending the request to the response head. */
  headMs: number;
  /** Everything read so far. */
  text(): string;
  /** Waits until the text satisfies `predicate`; resolves with the ms since the response head, or null on timeout/end. */
  until(predicate: (text: string) => boolean, timeoutMs: number): Promise<number | null>;
  close(): void;
}

/**
 * GET of an event stream with a DPoP proof (retried once on `use_dpop_nonce`), read incrementally through the suite's
 * client (engine/transport/http.ts), which records the exchange with what was read of the stream as its body.
 */
export async function openEventStream(
  shop: Shop,
  agent: AssistantAgent,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenStream | ShopResponse> {
  for (let attempt = 0; ; attempt++) {
    const proof = await agent.proof('GET', path);
    const stream = await shop.http.stream('GET', path, {
      headers: { authorization: `DPoP ${agent.token}`, dpop: proof, accept: 'text/event-stream', ...headers },
    });
    const nonce = stream.headers.get('dpop-nonce');
    if (nonce) agent.nonce = nonce;
    const contentType = stream.headers.get('content-type') ?? '';
    if (stream.status !== 200 || !contentType.toLowerCase().startsWith('text/event-stream')) {
      const answer = await stream.response();
      if (attempt === 0 && answer.status === 401 && errorOf(answer) === 'use_dpop_nonce') continue;
      return answer;
    }
    return { res: stream, headMs: stream.headMs, text: stream.text, until: stream.until, close: stream.close };
  }
}

export const isStream = (s: OpenStream | ShopResponse): s is OpenStream => 'until' in s;

/** Comment lines of an event stream (lines starting with a colon, WHATWG HTML §9.2.6). */
export const hasComment = (text: string) => /(^|\n):[^\n]*\n/.test(text);

/** The events (blocks with data lines) of an event stream, data parsed as JSON where it is JSON. */
export function eventsOf(text: string): { id?: string; event?: string; data: unknown }[] {
  return text
    .split('\n\n')
    .filter((b) => b.split('\n').some((l) => l.startsWith('data:')))
    .map((block) => {
      const e: { id?: string; event?: string; data: unknown } = { data: undefined };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const m = /^([a-z]+): ?(.*)$/.exec(line);
        if (!m) continue;
        if (m[1] === 'id') e.id = m[2];
        else if (m[1] === 'event') e.event = m[2];
        else if (m[1] === 'data') data.push(m[2]!);
      }
      try {
        e.data = JSON.parse(data.join('\n'));
      } catch {
        e.data = data.join('\n');
      }
      return e;
    });
}

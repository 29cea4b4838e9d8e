// An event stream (text/event-stream) read incrementally, as the conversation checks read it, and the events and
// comments in what was read (WHATWG HTML §9.2).
import type { Shop } from '../../engine/check.js';
import type { ShopResponse } from '../../engine/http.js';
import type { Exchange } from '../../engine/transcript.js';
import { errorOf, type AssistantAgent } from '../../lib/assistant.js';

export interface OpenStream {
  res: Response;
  /** ms from sending the request to the response head. */
  headMs: number;
  /** Everything read so far. */
  text(): string;
  /** Waits until the text satisfies `predicate`; resolves with the ms since the response head, or null on timeout/end. */
  until(predicate: (text: string) => boolean, timeoutMs: number): Promise<number | null>;
  close(): void;
}

/**
 * GET of an event stream with a DPoP proof (retried once on `use_dpop_nonce`), read incrementally. The exchange is recorded
 * for the transcript, with what was read of the stream as its body.
 */
export async function openEventStream(shop: Shop, agent: AssistantAgent, path: string, headers: Record<string, string> = {}): Promise<OpenStream | ShopResponse> {
  for (let attempt = 0; ; attempt++) {
    const proof = await agent.proof('GET', path);
    const requestHeaders = { authorization: `DPoP ${agent.token}`, dpop: proof, accept: 'text/event-stream', ...headers };
    const x: Exchange = { method: 'GET', url: shop.http.url(path), requestHeaders, ms: 0 };
    shop.http.exchanges.push(x);
    const controller = new AbortController();
    const started = Date.now();
    const res = await fetch(x.url, { headers: requestHeaders, signal: controller.signal });
    x.ms = Date.now() - started;
    x.status = res.status;
    x.responseHeaders = Object.fromEntries(res.headers.entries());
    const nonce = res.headers.get('dpop-nonce');
    if (nonce) agent.nonce = nonce;
    const contentType = res.headers.get('content-type') ?? '';
    if (res.status !== 200 || !contentType.toLowerCase().startsWith('text/event-stream')) {
      const text = await res.text();
      x.responseBody = text;
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        body = undefined;
      }
      const answer: ShopResponse = { status: res.status, headers: res.headers, body, text };
      if (attempt === 0 && res.status === 401 && errorOf(answer) === 'use_dpop_nonce') continue;
      return answer;
    }
    const headAt = Date.now();
    let buffer = '';
    let ended = false;
    const waiters = new Set<() => void>();
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          x.responseBody = buffer.length > 4000 ? `${buffer.slice(0, 4000)}…` : buffer;
          for (const w of [...waiters]) w();
        }
      } catch {
        // closed by the check
      } finally {
        ended = true;
        for (const w of [...waiters]) w();
      }
    })();
    return {
      res,
      headMs: headAt - started,
      text: () => buffer,
      close: () => controller.abort(),
      until: (predicate, timeoutMs) =>
        new Promise((resolve) => {
          const done = (value: number | null) => {
            waiters.delete(test);
            clearTimeout(timer);
            resolve(value);
          };
          const test = () => {
            if (predicate(buffer)) done(Date.now() - headAt);
            else if (ended) done(null);
          };
          const timer = setTimeout(() => done(null), timeoutMs);
          waiters.add(test);
          test();
        }),
    };
  }
}

export const isStream = (s: OpenStream | ShopResponse): s is OpenStream => 'until' in s;

/** Comment lines of an event stream (lines starting with a colon, WHATWG HTML §9.2.6). */
export const hasComment = (text: string) => /(^|\n):[^\n]*\n/.test(text);

/** The events (blocks with data lines) of an event stream, data parsed as JSON where it is JSON. */
export function eventsOf(text: string): { id?: string; event?: string; data: unknown }[] {
  return text.split('\n\n').filter((b) => b.split('\n').some((l) => l.startsWith('data:'))).map((block) => {
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

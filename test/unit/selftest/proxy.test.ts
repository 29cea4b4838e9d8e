// The self-test proxy survives a rewrite that throws: that exchange is answered 502 with a problem document and the log
// names the defect, and the next exchange is proxied as usual. No socket: the upstream and the client are stand-ins.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { proxyHandler, type ProxyRules, type Transport } from '../../../conformance/selftest/proxy.js';

/** What the proxy wrote to its client. */
class Recorded extends EventEmitter {
  status = 0;
  headers: string[] = [];
  chunks: Buffer[] = [];
  headersSent = false;
  writableFinished = false;
  destroyed = false;
  sendDate = true;
  finished = new Promise<void>((resolve) => this.once('done', resolve));
  writeHead(status: number, headers: string[]) {
    this.status = status;
    this.headers = headers;
    this.headersSent = true;
    return this;
  }
  flushHeaders() {}
  write(chunk: Buffer) {
    this.chunks.push(Buffer.from(chunk));
    return true;
  }
  end(chunk?: Buffer) {
    if (chunk) this.write(chunk);
    this.writableFinished = true;
    this.emit('done');
    return this;
  }
  destroy() {
    this.destroyed = true;
    this.emit('done');
    return this;
  }
  get body() {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

const incoming = (method: string, url: string): IncomingMessage => {
  const req = new PassThrough() as unknown as IncomingMessage & PassThrough;
  Object.assign(req, { method, url, rawHeaders: ['Host', 'shop.test'] });
  req.end();
  return req;
};

/** An upstream that answers every request 200 with `body` (JSON, or an event stream), and counts the requests. */
function upstream(body: string, contentType = 'application/json'): { transport: Transport; calls: () => number } {
  let calls = 0;
  const transport: Transport = () => {
    calls++;
    const out = new PassThrough();
    out.resume();
    out.on('finish', () => {
      const answer = new PassThrough() as unknown as IncomingMessage & PassThrough;
      Object.assign(answer, { statusCode: 200, rawHeaders: ['Content-Type', contentType, 'X-Request-Id', 'req-1'] });
      out.emit('response', answer);
      answer.end(body);
    });
    return out as unknown as ClientRequest;
  };
  return { transport, calls: () => calls };
}

async function exchange(handler: ReturnType<typeof proxyHandler>, method = 'GET', url = '/v1/cart'): Promise<Recorded> {
  const res = new Recorded();
  await handler(incoming(method, url), res as unknown as ServerResponse);
  await res.finished;
  return res;
}

describe('self-test proxy: a rewrite that throws', () => {
  test('a throwing response rewrite answers 502 with a problem document, logs the defect id, and the proxy goes on', async () => {
    const log: string[] = [];
    const up = upstream('{"ok":true}');
    const rules: ProxyRules = {
      label: 'errors.some-defect',
      response(a, r) {
        if (r.path === '/v1/cart') throw new Error('boom');
        return a;
      },
    };
    const handler = proxyHandler('http://upstream.test', rules, {}, up.transport, (line) => log.push(line));
    const res = await exchange(handler);
    assert.equal(res.status, 502);
    const fields = Object.fromEntries(res.headers.flatMap((v, i, all) => (i % 2 === 0 ? [[v.toLowerCase(), all[i + 1]]] : []))) as Record<
      string,
      string
    >;
    assert.equal(fields['content-type'], 'application/problem+json');
    assert.equal(fields['x-request-id'], 'req-1');
    const problem = JSON.parse(res.body) as Record<string, unknown>;
    assert.equal(problem.status, 502);
    assert.equal(problem.title, 'Bad Gateway');
    assert.equal(typeof problem.error, 'string');
    assert.match(String(problem.detail), /errors\.some-defect.*boom/);
    assert.equal(log.length, 1);
    assert.match(log[0]!, /errors\.some-defect.*response.*boom/);
    const next = await exchange(handler, 'GET', '/v1/catalog/products');
    assert.equal(next.status, 200);
    assert.equal(next.body, '{"ok":true}');
  });

  test('a request rewrite that rejects answers 502 before anything goes upstream', async () => {
    const log: string[] = [];
    const up = upstream('{}');
    const rules: ProxyRules = {
      label: 'auth.some-leniency',
      request: () => Promise.reject(new Error('cannot sign')),
    };
    const res = await exchange(
      proxyHandler('http://upstream.test', rules, {}, up.transport, (line) => log.push(line)),
      'POST',
    );
    assert.equal(res.status, 502);
    assert.equal((JSON.parse(res.body) as { status: number }).status, 502);
    assert.equal(up.calls(), 0);
    assert.match(log.join('\n'), /auth\.some-leniency.*request.*cannot sign/);
  });

  test('a stream filter that throws once the head is out cuts that answer and logs the defect id', async () => {
    const log: string[] = [];
    const up = upstream(': keep-alive\n\n', 'text/event-stream');
    const rules: ProxyRules = {
      label: 'events.some-stream-defect',
      streamFilter: () => () => {
        throw new Error('bad chunk');
      },
    };
    const res = await exchange(proxyHandler('http://upstream.test', rules, {}, up.transport, (line) => log.push(line)));
    assert.equal(res.status, 200);
    assert.equal(res.destroyed, true);
    assert.match(log.join('\n'), /events\.some-stream-defect.*stream.*bad chunk/);
  });
});

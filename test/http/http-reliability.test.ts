// What an attacking client gets, at the socket where the answer depends on framing (spec, Errors; Limits; docs/errors.md):
// one answer per request even when bytes follow a `Connection: close` request; a declared body over the cap refused at
// once; JSON bodies bounded in nesting and in values before anything parses them; single-valued attribution headers
// refused when repeated; problem documents bounded in size whatever the body provoked.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { installClientErrorHandler } from '../../reference/src/boundary.js';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectProblem } from '../../conformance/lib/assert.js';
import { JSON_BOUNDS } from '../../reference/src/json-bounds.js';

let h: Harness;
before(async () => (h = await startReference()));
after(() => h.close());

interface RawResponse {
  status: number;
  headers: Map<string, string[]>;
  body: any;
}

/** Everything the server writes on one connection until it closes (or `timeoutMs` passes: then it fails). */
function exchange(chunks: (string | Buffer)[], timeoutMs = 10_000, port?: number): Promise<{ text: string; closed: boolean }> {
  const u = new URL(h.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(port ?? Number(u.port), u.hostname, () => {
      for (const c of chunks) socket.write(c);
    });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no close within ${timeoutMs} ms; received: ${text.slice(0, 300)}`));
    }, timeoutMs);
    socket.setEncoding('latin1');
    socket.on('data', (b: string) => (text += b));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', () => {}); // a reset after the answer is still a close
  });
}

/** Splits what a connection received into its responses (Content-Length framed, as the reference writes them). */
function responses(text: string): RawResponse[] {
  const out: RawResponse[] = [];
  let rest = text;
  while (rest.startsWith('HTTP/1.')) {
    const end = rest.indexOf('\r\n\r\n');
    const [statusLine, ...lines] = rest.slice(0, end).split('\r\n');
    const headers = new Map<string, string[]>();
    for (const line of lines) {
      const i = line.indexOf(':');
      const k = line.slice(0, i).toLowerCase();
      headers.set(k, [...(headers.get(k) ?? []), line.slice(i + 1).trim()]);
    }
    const length = Number(headers.get('content-length')?.[0] ?? 0);
    const bodyText = rest.slice(end + 4, end + 4 + length);
    let body: unknown;
    try {
      body = JSON.parse(bodyText);
    } catch {
      body = undefined;
    }
    out.push({ status: Number(statusLine!.split(' ')[1]), headers, body });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const host = () => new URL(h.url).host;

/** Sends `chunks` on one connection: exactly one answer, of `status` and `error`, then the server closes (within 5 s). */
async function expectOneRefusalThenClose(chunks: (string | Buffer)[], status: number, error: string): Promise<void> {
  const { text, closed } = await exchange(chunks, 5_000);
  const all = responses(text);
  assert.deepEqual(
    all.map((r) => [r.status, r.body?.error]),
    [[status, error]],
    text.slice(0, 400),
  );
  assert.equal(all[0]!.headers.get('connection')?.[0], 'close');
  assert.ok(closed);
}

describe('one answer per request: bytes after a Connection: close request (boundary.ts, clientError)', () => {
  test('a full request with Connection: close and trailing bytes gets exactly its own answer, and its effect happens once', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const body = JSON.stringify({ variant_id: 'var_0101', quantity: 1 });
    const before = (await h.call('/v1/cart', { headers: bearer(token) })).body.item_count as number;
    for (const trailing of ['X', '\r\n', 'GET / HTTP/1.1\r\n\r\n', '\0\0\0']) {
      const { text } = await exchange([
        `POST /v1/cart/items HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}${trailing}`,
      ]);
      const all = responses(text);
      assert.equal(all.length, 1, `exactly one response (trailing ${JSON.stringify(trailing)}): ${text.slice(0, 400)}`);
      assert.equal(all[0]!.status, 201, JSON.stringify(all[0]!.body));
    }
    const afterAdds = (await h.call('/v1/cart', { headers: bearer(token) })).body.item_count as number;
    assert.equal(afterAdds, before + 4, 'each request ran once');
    // A synchronous answer (no await before it is written) is kept the same way.
    const { text } = await exchange([`GET /health HTTP/1.1\r\nHost: ${host()}\r\nConnection: close\r\n\r\nXYZ`]);
    assert.deepEqual(
      responses(text).map((r) => r.status),
      [200],
    );
  });

  test('the parse error is logged, not written; a keep-alive request with garbage pipelined behind it gets its answer, then close', async () => {
    const logs: Record<string, unknown>[] = [];
    const log = { debug() {}, info() {}, warn: (event: string, f = {}) => logs.push({ event, ...f }), error() {} };
    const server = createServer((_req, res) => setTimeout(() => res.end('late answer'), 20));
    installClientErrorHandler(server, 'https://docs.shop.test', log);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      for (const connection of ['close', 'keep-alive']) {
        const { text } = await exchange(
          [`GET / HTTP/1.1\r\nHost: x\r\nConnection: ${connection}\r\n\r\n\u0001garbage\r\n\r\n`],
          5_000,
          port,
        );
        assert.deepEqual(
          responses(text).map((r) => r.status),
          [200],
          text,
        );
        assert.match(text, /late answer$/);
      }
      assert.deepEqual(
        logs.map((l) => [l.event, l.answering]),
        [
          ['client_error', true],
          ['client_error', true],
        ],
      );
      assert.equal(logs[0]!.code, 'HPE_CLOSED_CONNECTION');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  test('a malformed request on its own still gets the 400 problem document, at once', async () => {
    const all = responses((await exchange(['GARBAGE\r\n\r\n'], 5_000)).text);
    assert.deepEqual(
      all.map((r) => [r.status, r.body?.error]),
      [[400, 'invalid_request']],
    );
    // A malformed chunk: the request never completes, so the parse error is its answer.
    const chunked = responses(
      (
        await exchange(
          [`POST /v1/cart/items HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n`],
          5_000,
        )
      ).text,
    );
    assert.deepEqual(
      chunked.map((r) => [r.status, r.body?.error]),
      [[400, 'invalid_request']],
    );
  });
});

describe('a declared body over the cap (413 at once, connection closed)', () => {
  test('Content-Length over 256 KiB with one byte sent: 413 payload_too_large without waiting for the body, then close', async () => {
    for (const path of ['/v1/cart/items', '/v1/checkouts/saved-card', '/webhooks/stripe']) {
      await expectOneRefusalThenClose(
        [
          `POST ${path} HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 300000\r\n` +
            `Authorization: Bearer forged.token.value\r\n\r\n{`,
        ],
        413,
        'payload_too_large',
      );
    }
  });

  test('a server closed right after such a refusal closes, and its process ends normally', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'test/helpers/close-after-refusal.ts'], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'closed');
  });

  test('a declared length at the cap is read (then decoded as usual)', async () => {
    const res = await h.call('/v1/cart/items', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"pad":"${'x'.repeat(256 * 1024 - 10)}"}`,
    });
    assert.equal(Buffer.byteLength(`{"pad":"${'x'.repeat(256 * 1024 - 10)}"}`), 256 * 1024);
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
  });
});

describe('JSON bodies are bounded before they are parsed (depth 32, 10,000 values): 400 invalid_json before authentication', () => {
  const forged = { authorization: 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln', 'content-type': 'application/json' };
  const post = (body: string) => h.call('/v1/cart/items', { method: 'POST', headers: forged, body });
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

  test('the decided bounds', () => {
    assert.deepEqual(JSON_BOUNDS, { maxDepth: 32, maxValues: 10_000 });
  });

  test('125,000 nested arrays (250 KB) under a forged token: 400 invalid_json naming the depth bound, not 401', async () => {
    const res = await post(nested(125_000));
    const p = expectProblem(res, { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    assert.match(String(p.detail), /depth/i);
    assert.match(String(p.detail), /32/);
  });

  test('depth 32 decodes (the token is then refused); depth 33, in arrays or objects, is 400', async () => {
    expectProblem(await post(nested(32)), { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectProblem(await post(nested(33)), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
    expectProblem(await post(objects(32)), { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectProblem(await post(objects(33)), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
  });

  test('10,000 values decode; 10,001 are 400 invalid_json naming the values bound', async () => {
    const array = (n: number) => `[${Array.from({ length: n }, () => '0').join(',')}]`;
    expectProblem(await post(array(10_000)), { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    const p = expectProblem(await post(array(10_001)), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    assert.match(String(p.detail), /10,?000/);
    const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',')}}`;
    expectProblem(await post(members(10_000)), { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectProblem(await post(members(10_001)), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
  });

  test('brackets and commas inside strings are not structure; malformed JSON is still invalid_json', async () => {
    const inString = JSON.stringify({ s: '['.repeat(5000) + ','.repeat(20_000) });
    expectProblem(await post(inString), { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectProblem(await post('{"a":'), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    expectProblem(await post('[1,]'), { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
  });

  test('a body over a bound is refused at the chunk that crosses it: 400 at once, without the rest, then close', async () => {
    // 250,000 bytes declared, the first 1,000 sent: the answer cannot wait for the rest.
    for (const first of [nested(500), `[${'0,'.repeat(JSON_BOUNDS.maxValues + 10)}`]) {
      await expectOneRefusalThenClose(
        [
          `POST /v1/cart/items HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 250000\r\n` +
            `Authorization: Bearer forged.token.value\r\n\r\n${first}`,
        ],
        400,
        'invalid_json',
      );
    }
  });

  test('a chunked body that runs over the cap: 413 at the chunk that crosses it, then close', async () => {
    const chunk = `[${'"x",'.repeat(1000)}`; // never over a bound before the cap: 1,000 values per 4 KB
    const big = Buffer.from(`"${'y'.repeat(300_000)}`);
    await expectOneRefusalThenClose(
      [
        `POST /v1/cart/items HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n` +
          `Authorization: Bearer forged.token.value\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n` +
          `${big.length.toString(16)}\r\n`,
        big,
        '\r\n',
      ],
      413,
      'payload_too_large',
    );
  });

  test('a gzip body is bounded once inflated', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await h.call('/v1/cart/items', {
      method: 'POST',
      headers: { ...forged, 'content-encoding': 'gzip' },
      body: gzipSync(nested(1000)),
    });
    expectProblem(res, { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
  });

  test('22,000 unknown members (230 KB) from a signed-in customer: a small 400 invalid_json', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const body = `{${Array.from({ length: 22_000 }, (_, i) => `"m${i}":1`).join(',')}}`;
    assert.ok(body.length > 200_000 && body.length < 256 * 1024);
    const res = await h.call('/v1/cart/items', { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body });
    expectProblem(res, { status: 400, error: 'invalid_json', docsUrl: h.profile.docsUrl });
    assert.ok(res.text.length < 2048, `${res.text.length} bytes`);
  });
});

describe('problem documents are bounded in size', () => {
  test('5,000 unknown members with long names from a signed-in customer: 400 invalid_request of at most 4 KiB', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const name = (i: number) => `unknown_member_with_a_long_name_${i}`;
    const body = `{"variant_id":"var_0101","quantity":1,${Array.from({ length: 5_000 }, (_, i) => `"${name(i)}":1`).join(',')}}`;
    const res = await h.call('/v1/cart/items', { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body });
    const p = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    assert.ok(Buffer.byteLength(res.text) <= 4096, `${Buffer.byteLength(res.text)} bytes`);
    for (const i of p.issues as { path: string; message: string }[]) {
      assert.ok(i.path.length <= 200 && i.message.length <= 200, JSON.stringify(i).slice(0, 300));
    }
  });

  test('one member with a 200 KB name: the issue path is cut, the document stays small', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    const body = JSON.stringify({ variant_id: 'var_0101', quantity: 1, ['k'.repeat(200_000)]: 1 });
    const res = await h.call('/v1/cart/items', { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body });
    expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    assert.ok(Buffer.byteLength(res.text) <= 4096, `${Buffer.byteLength(res.text)} bytes`);
  });
});

describe('single-valued attribution headers sent twice: 400 invalid_request, issue {path: headers.<name>, code: duplicate}', () => {
  // Two DPoP fields are a proof failure instead (401 invalid_dpop_proof, spec Errors: test/http/http-assistant.test.ts), and
  // two Invited-Agent-Context fields a malformed credential (401 invalid_token: test/http/invited-agent.test.ts).
  for (const name of ['Operator', 'Guest-Session', 'Shopper-IP', 'Assistant-Subject']) {
    test(`two ${name} headers`, async () => {
      const token = await h.minter.operator();
      const { text } = await exchange([
        `GET /v1/cart HTTP/1.1\r\nHost: ${host()}\r\nAuthorization: Bearer ${token}\r\n${name}: a@x\r\n${name}: b@x\r\nConnection: close\r\n\r\n`,
      ]);
      const all = responses(text);
      assert.equal(all.length, 1, text.slice(0, 300));
      assert.equal(all[0]!.status, 400);
      assert.equal(all[0]!.body?.error, 'invalid_request');
      assert.deepEqual(all[0]!.body?.issues, [
        { path: `headers.${name.toLowerCase()}`, code: 'duplicate', message: `The ${name.toLowerCase()} header may appear only once.` },
      ]);
    });
  }
});

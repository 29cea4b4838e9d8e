// The stage table is the wiring: its order is the spec's (Authentication > Request processing order) and pipelineFor
// builds exactly its stages, the app-wide request stage excepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { groupOf, stageHandlers, stageNames, STAGE_TABLE } from '../../../reference/src/pipeline/groups.js';
import { ALL_ROUTES, ROUTES } from '../../../reference/src/app.js';
import type { Domain } from '../../../reference/src/domain.js';

test("operations run the spec's stages in the spec's order", () => {
  assert.deepEqual(stageNames('operations'), [
    'request',
    'decode',
    'domain',
    'authenticate',
    'admit caller',
    'actor',
    'guard',
    'rate limit',
    'input validation',
    'handler',
    'output validation',
  ]);
  // Conversations cap their writes before decoding, then run as operations.
  assert.deepEqual(
    stageNames('conversations').filter((n) => !n.startsWith('write cap')),
    stageNames('operations'),
  );
  assert.equal(stageNames('conversations')[1], 'write cap (64 KiB by Content-Length)');
});

test('stageHandlers builds one handler per stage of the table (decode may be several), the app-wide ones left to the app', () => {
  const domain = {} as Domain;
  const route = ROUTES.find((r) => r.operation.operationId === 'getCart')!;
  const handlers = stageHandlers(route, domain);
  const built = STAGE_TABLE.operations.filter((s) => !s.appWide).length;
  assert.ok(handlers.length >= built, `${handlers.length} handlers for ${built} stages`);
  assert.ok(handlers.every((h) => typeof h === 'function'));
  // Every route of the contract has a group, and the group follows from its row.
  for (const r of ALL_ROUTES) {
    const group = groupOf(r);
    assert.equal(group, r.row.kind === 'operation' ? (r.operation?.group === 'conversation' ? 'conversations' : 'operations') : r.row.kind);
    assert.equal(stageHandlers(r, domain).length >= STAGE_TABLE[group].filter((s) => !s.appWide).length, true, r.row.operationId);
  }
});

test('contextAt: typed by the stages before it; a stage placed before what it reads is a wiring bug, named', async () => {
  const { contextAt } = await import('../../../reference/src/pipeline/context.js');
  const res = { locals: { ctx: { requestId: 'r', scheme: 'Bearer', scopes: new Set(), domain: {} } } } as never;
  assert.equal(contextAt(res, 'bound').requestId, 'r');
  assert.throws(() => contextAt(res, 'acting'), /route, operation, token, presentedScheme, caller, actor missing at "acting"/);
  assert.throws(() => contextAt({ locals: {} } as never, 'bound'), /request stage did not run/);
});

test('chain runs the stages in order as one handler; a thrown, passed or rejected error skips the rest', async () => {
  const { chain } = await import('../../../reference/src/pipeline/groups.js');
  type H = Parameters<typeof chain>[0][number];
  const run = (handlers: H[]) =>
    new Promise<{ seen: string[]; err: unknown }>((resolve) => {
      const seen: string[] = [];
      const wrapped = handlers.map((h, i): H => (req, res, next) => {
        seen.push(String(i));
        return h(req, res, next);
      });
      chain(wrapped)({} as never, {} as never, (err?: unknown) => resolve({ seen, err }));
    });
  const pass: H = (_q, _s, next) => next();
  assert.deepEqual(await run([pass, pass, pass]), { seen: ['0', '1', '2'], err: undefined });
  const boom = new Error('boom');
  const thrown = await run([
    pass,
    () => {
      throw boom;
    },
    pass,
  ]);
  assert.deepEqual(thrown, { seen: ['0', '1'], err: boom });
  assert.deepEqual(await run([(_q, _s, next) => next(boom), pass]), { seen: ['0'], err: boom });
  assert.deepEqual(await run([pass, async () => Promise.reject(boom), pass]), { seen: ['0', '1'], err: boom });
});

test('the stages live in pipeline/, which imports nothing from routes/ (routes only define routes)', async () => {
  const { readdirSync, readFileSync } = await import('node:fs');
  const dir = new URL('../../../reference/src/pipeline/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.includes('groups.ts') && files.includes('dispatch.ts'), files.join(', '));
  for (const f of files) {
    const text = readFileSync(new URL(f, dir), 'utf8');
    assert.doesNotMatch(text, /from '\.\.\/routes\//, `pipeline/${f} imports from routes/`);
  }
});

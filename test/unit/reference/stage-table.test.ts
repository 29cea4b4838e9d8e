// The stage table is the wiring: its order is the spec's (Authentication > Request processing order) and pipelineFor
// builds exactly its stages, the app-wide request stage excepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pipelineFor, stageNames, STAGE_TABLE } from '../../../reference/src/pipeline/groups.js';
import { ROUTES } from '../../../reference/src/app.js';
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

test('pipelineFor builds one handler per stage of the table (decode may be several), the app-wide ones left to the app', () => {
  const domain = {} as Domain;
  const route = ROUTES.find((r) => r.operation.operationId === 'getCart')!;
  const handlers = pipelineFor('operations', route, domain);
  const built = STAGE_TABLE.operations.filter((s) => !s.appWide).length;
  assert.ok(handlers.length >= built, `${handlers.length} handlers for ${built} stages`);
  assert.ok(handlers.every((h) => typeof h === 'function'));
  const noop: Parameters<typeof pipelineFor<'public'>>[1] = (_req, _res, next) => next();
  assert.deepEqual(pipelineFor('public', noop, domain), [noop]);
});

test('contextAt: typed by the stages before it; a stage placed before what it reads is a wiring bug, named', async () => {
  const { contextAt } = await import('../../../reference/src/pipeline/context.js');
  const res = { locals: { ctx: { requestId: 'r', scheme: 'Bearer', scopes: new Set(), domain: {} } } } as never;
  assert.equal(contextAt(res, 'bound').requestId, 'r');
  assert.throws(() => contextAt(res, 'acting'), /route, operation, token, presentedScheme, caller, actor missing at "acting"/);
  assert.throws(() => contextAt({ locals: {} } as never, 'bound'), /request stage did not run/);
});

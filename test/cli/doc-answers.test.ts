// What the docs say the reference answers, the reference answers: each row names a doc, the sentence (or table row) in
// which it states a status and code, and the request that produces it. The test asserts that the doc still states it
// AND that the embedded reference answers it. The operator's attribution header, the forwarders' `agent:forward` and a
// token without `jti` (issue 37: the docs had said 400 `invalid_request`, `insufficient_scope` and a refusal).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH, fixtureProfile } from '../helpers/reference.js';
import { mintCredential, type CredentialRequest } from '../../cli/commands/token.js';
import { proxyPayload } from '../../conformance/lib/credential-formats.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import { DOCS } from '../helpers/recipes.js';

/** A request of the table: who asks, and what becomes of the headers the CLI would send. */
interface Ask {
  credential: CredentialRequest;
  path: string;
  headers?: (h: Record<string, string>) => Record<string, string>;
  /** A session the reference knows, for the assistant token a forwarder carries. */
  registeredAssistant?: true;
}

interface Row {
  doc: string;
  /** The statement, as the doc words it (line breaks and indentation folded to one space). */
  says: string;
  status: number;
  code?: string;
  ask: Ask;
}

const without = (name: string) => (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));
const operatorWithout: Ask = { credential: { kind: 'operator' }, path: '/v1/ops/orders', headers: without('Operator') };
const operatorEmpty: Ask = { ...operatorWithout, headers: (h) => ({ ...h, Operator: '' }) };
const operatorLong: Ask = { ...operatorWithout, headers: (h) => ({ ...h, Operator: 'o'.repeat(257) }) };
const mcpForwarder: Ask = {
  credential: { kind: 'mcp-agent-forwarder', scope: [] },
  path: '/v1/catalog/collections',
  registeredAssistant: true,
};
const webForwarder: Ask = { credential: { kind: 'invited-agent', scope: [] }, path: '/v1/catalog/collections' };

const ROWS: readonly Row[] = [
  {
    doc: 'tokens.md',
    says: '| operator token without `Operator` (or with an empty one) | 403 `caller_not_allowed` |',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorWithout,
  },
  {
    doc: 'tokens.md',
    says: '| operator token without `Operator` (or with an empty one) | 403 `caller_not_allowed` |',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorEmpty,
  },
  {
    doc: 'reference-choices.md',
    says: '403 `caller_not_allowed` for a machine token of a client that has no caller kind and for an operator token without `Operator`',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorWithout,
  },
  {
    doc: 'agent-developers.md',
    says: 'Without the header the answer is 403 `caller_not_allowed`',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorWithout,
  },
  {
    doc: 'pipeline.md',
    says: 'without one (or with an empty one) it is 403 `caller_not_allowed`',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorWithout,
  },
  {
    doc: 'pipeline.md',
    says: 'without one (or with an empty one) it is 403 `caller_not_allowed`',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorEmpty,
  },
  {
    doc: 'pipeline.md',
    says: 'a header over 256 characters is 400 `invalid_request` (issue `headers.Operator`, `too_long`)',
    status: 400,
    code: 'invalid_request',
    ask: operatorLong,
  },
  {
    doc: 'operator.md',
    says: 'The reference answers 403 `caller_not_allowed`; it is not a validation error of the request.',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorWithout,
  },
  {
    doc: 'operator.md',
    says: 'An empty header counts as none (403 `caller_not_allowed`)',
    status: 403,
    code: 'caller_not_allowed',
    ask: operatorEmpty,
  },
  {
    doc: 'operator.md',
    says: 'one over 256 characters is 400 `invalid_request` (issue at `headers.Operator`, code `too_long`)',
    status: 400,
    code: 'invalid_request',
    ask: operatorLong,
  },
  {
    doc: 'assistants.md',
    says: 'A forwarder token without `agent:forward` is 403 `caller_not_allowed`.',
    status: 403,
    code: 'caller_not_allowed',
    ask: mcpForwarder,
  },
  {
    doc: 'assistants.md',
    says: 'A forwarder whose token lacks `agent:forward`: 403 `caller_not_allowed`, with no `scope`, from the guard.',
    status: 403,
    code: 'caller_not_allowed',
    ask: mcpForwarder,
  },
  {
    doc: 'assistants.md',
    says: 'the forwarder is allowed to forward agents: `agent:forward`, else 403 `caller_not_allowed`',
    status: 403,
    code: 'caller_not_allowed',
    ask: mcpForwarder,
  },
  {
    doc: 'invited-agents.md',
    says: "The forwarder's scopes must contain `agent:forward`, else 403 `caller_not_allowed`, with no `scope`.",
    status: 403,
    code: 'caller_not_allowed',
    ask: webForwarder,
  },
  {
    doc: 'invited-agents.md',
    says: '| forwarder token without `agent:forward` | 403 | `caller_not_allowed` | no `scope`, no challenge |',
    status: 403,
    code: 'caller_not_allowed',
    ask: webForwarder,
  },
  {
    doc: 'agent-developers.md',
    says: '`--claim jti=` removes `jti`, and the reference still answers 200',
    status: 200,
    ask: { credential: { kind: 'customer', claims: { jti: undefined } }, path: '/v1/me' },
  },
];

/** What the docs said before and must not say again. */
const NEVER: readonly { doc: string; pattern: RegExp }[] = [
  { doc: 'tokens.md', pattern: /operator token without `Operator` \| 400/ },
  { doc: 'reference-choices.md', pattern: /400 `invalid_request` for an operator token without `Operator`/ },
  { doc: 'agent-developers.md', pattern: /without the header the answer is 400/i },
  { doc: 'pipeline.md', pattern: /`Operator` header of 1–256 characters, else 400/ },
  { doc: 'operator.md', pattern: /An empty or over-long header is 400/ },
  ...['assistants.md', 'invited-agents.md'].map((doc) => ({
    doc,
    pattern: /`agent:forward`[^.|]*(insufficient_scope|scope: "agent:forward")/,
  })),
  { doc: 'agent-developers.md', pattern: /token customer --claim jti=\s+# a claim removed/ },
];

const fold = (text: string) => text.replace(/\s*\n\s*/g, ' ');
const read = (doc: string) => fold(readFileSync(`${DOCS}${doc}`, 'utf8'));

let reference: RunningServer;
before(async () => {
  reference = await startServer(
    loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
});
after(() => reference.close());

/** An assistant token of a session the reference knows (the identity-provider proxy reported it). */
async function registeredAssistantToken(): Promise<string> {
  const sid = `as_${randomUUID()}`;
  const report = await fetch(`${reference.url}${SPECIAL_PATHS.recordConnectedAgent}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-proxy-idp-secret': fixtureProfile.secrets.proxyIdpSecret! },
    body: JSON.stringify(
      proxyPayload(fixtureProfile.conventions, 'agentConnected', {
        subject: 'cust_ada',
        agent_id: 'agent_doc',
        client_id: 'doc-answers',
        permissions: ['assistant:read'],
        session_id: sid,
      }),
    ),
  });
  assert.ok(report.ok, `the session report: ${report.status}`);
  return (await mintCredential(fixtureProfile, { kind: 'assistant', sid })).token;
}

async function answer(ask: Ask): Promise<{ status: number; code?: string }> {
  const credential = { ...ask.credential, ...(ask.registeredAssistant ? { assistantSubject: await registeredAssistantToken() } : {}) };
  const { headers } = await mintCredential(fixtureProfile, credential);
  const res = await fetch(`${reference.url}${ask.path}`, { headers: ask.headers ? ask.headers(headers) : headers });
  const body = (await res.json()) as { error?: string };
  return { status: res.status, ...(body.error !== undefined ? { code: body.error } : {}) };
}

for (const row of ROWS) {
  test(`docs/${row.doc} states ${row.status}${row.code ? ` ${row.code}` : ''}, and the reference answers it: "${row.says.slice(0, 60)}…"`, async () => {
    assert.ok(read(row.doc).includes(fold(row.says)), `docs/${row.doc} no longer says: ${row.says}`);
    const got = await answer(row.ask);
    assert.deepEqual(got, { status: row.status, ...(row.code ? { code: row.code } : {}) });
  });
}

test('the docs no longer state the answers the reference does not give', () => {
  const found = NEVER.filter((n) => n.pattern.test(read(n.doc))).map((n) => `docs/${n.doc}: ${n.pattern}`);
  assert.deepEqual(found, []);
});

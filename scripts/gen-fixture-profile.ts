// One-off: writes fixtures/profile.json (test-only keys); with `schema`, only fixtures/profile.schema.json and
// fixtures/expected-failures.schema.json (the baseline file's JSON Schema), which tests keep current.
import { inputSchemaDocument } from '../reference/src/json-schema.js';
import { writeFileSync } from 'node:fs';
import { profileSchema } from '../contract/profile.js';
import { baselineJsonSchema } from '../conformance/engine/report/baseline.js';
import { generateProfile } from '../cli/profile-init.js';

const which = process.argv[2] ?? 'both';
if (which !== 'schema') {
  const p = await generateProfile({ name: 'fixture', testOnly: true, now: new Date('2026-01-01T00:00:00Z') });
  // The fixture's previous guest key stays valid far ahead, so the fixture never ages; tests pass their own deadlines.
  p.secrets.guestSessionKeyPreviousUntil = '2099-01-01T00:00:00.000Z';
  const fixed = {
    ...p,
    clients: {
      website: 'shop-website',
      storefront: 'shop-storefront',
      backoffice: 'shop-backoffice',
      agentProtocol: 'shop-agent-protocol',
      webAgentForwarder: 'shop-web-agent-forwarder',
      mcpAgentForwarder: 'shop-mcp-agent-forwarder',
      personalAgentProxy: 'shop-personal-agent-proxy',
    },
    // The reference reads the action script's secret as a bearer credential (docs/internal-routes.md): declared, so the
    // embedded run judges the security-intent route (docs/profile.md, conventions.actionSecret).
    conventions: { actionSecret: { header: 'Authorization', scheme: 'Bearer' } },
  };
  writeFileSync(
    new URL('../fixtures/profile.json', import.meta.url),
    JSON.stringify({ _comment: 'TEST-ONLY keys and secrets: never use them to guard real data.', ...fixed }, null, 2) + '\n',
  );
}
const schema = inputSchemaDocument(profileSchema);
writeFileSync(new URL('../fixtures/expected-failures.schema.json', import.meta.url), JSON.stringify(baselineJsonSchema(), null, 2) + '\n');
writeFileSync(
  new URL('../fixtures/profile.schema.json', import.meta.url),
  JSON.stringify({ ...schema, title: 'shop-conformance profile' }, null, 2) + '\n',
);

// The suite's identity provider can be taken down on purpose, by the profile's holder only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startIdp } from '../../conformance/engine/doctor/idp.js';
import { readProfileFile } from '../../conformance/engine/runner/params.js';
import { idpControlToken } from '../../conformance/lib/mint.js';

const profile = readProfileFile(new URL('../../fixtures/profile.json', import.meta.url).pathname);

test('POST /outage with the control token makes the key set answer 503 until it ends', async () => {
  const idp = await startIdp({ profile });
  try {
    const control = { authorization: `Bearer ${idpControlToken(profile)}` };
    assert.deepEqual(await (await fetch(`${idp.url}/outage`)).json(), { outage: false });
    assert.equal((await fetch(`${idp.url}/outage?seconds=5`, { method: 'POST', headers: { authorization: 'Bearer nope' } })).status, 401);
    assert.equal((await fetch(idp.jwksUri)).status, 200, 'a refused control request changes nothing');
    assert.equal((await fetch(`${idp.url}/outage?seconds=500`, { method: 'POST', headers: control })).status, 400);
    const down = await fetch(`${idp.url}/outage?seconds=30`, { method: 'POST', headers: control });
    assert.equal(down.status, 200);
    assert.equal((await fetch(idp.jwksUri)).status, 503);
    assert.equal((await fetch(`${idp.url}/.well-known/openid-configuration`)).status, 200, 'discovery stays up');
    assert.deepEqual(await (await fetch(`${idp.url}/outage`)).json(), { outage: true });
    await fetch(`${idp.url}/outage?seconds=0`, { method: 'POST', headers: control });
    assert.equal((await fetch(idp.jwksUri)).status, 200);
  } finally {
    await idp.close();
  }
});

test('the control token depends on the private key, so a profile with another key cannot control this one', () => {
  const other = JSON.parse(readFileSync(new URL('../../fixtures/profile.json', import.meta.url), 'utf8'));
  other.signingKeys[0].d = Buffer.alloc(32, 7).toString('base64url');
  assert.notEqual(idpControlToken(profile), idpControlToken(other));
});

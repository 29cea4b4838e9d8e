// HTTPS with a private CA: the suite judges a deployment behind TLS when given the CA (--ca) or told to accept any
// certificate (--insecure); without either it stops at once, naming the TLS problem. The deployment is the reference
// behind a TLS front that passes bytes through (test/helpers/tls.ts), with its public URL set so that DPoP `htu` matches.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../reference/src/config.js';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { cli } from '../helpers/cli.js';
import { makeTestCertificates, startTlsFront, type TestCertificates, type TlsFront } from '../helpers/tls.js';

const out = () => mkdtempSync(join(tmpdir(), 'shop-tls-run-'));

describe('a deployment behind HTTPS with a private CA', () => {
  let certs: TestCertificates;
  let front: TlsFront;
  let reference: RunningServer;
  before(async () => {
    certs = makeTestCertificates();
    let upstream = 0;
    front = await startTlsFront(certs, () => upstream);
    reference = await startServer(
      loadConfig({
        env: {},
        profilePath: FIXTURE_PROFILE_PATH,
        overrides: { port: 0, host: '127.0.0.1', databasePath: ':memory:', logLevel: 'silent', publicBaseUrl: front.url },
      }),
    );
    upstream = (reference.server.address() as AddressInfo).port;
  });
  after(async () => {
    await front.close();
    await reference.close();
  });

  test('run --ca <the CA> --level spec: every check passes over TLS (exit 0)', async () => {
    const r = await cli(
      ['run', '--base-url', front.url, '--ca', certs.caPath, '--level', 'spec', '--workers', '2', '--reporter', 'dot', '--output', out()],
      300_000,
    );
    assert.equal(r.code, 0, r.out.slice(-3000));
    assert.match(r.out, /doctor: ok {3}trusts customer/);
  });

  test('self-test --ca: the defects sit in front of the HTTPS deployment and are killed (exit 0)', async () => {
    const dir = out();
    const args = ['self-test', '--base-url', front.url, '--ca', certs.caPath, '--level', 'spec', '--output', dir];
    const r = await cli([...args, '--defect', 'endpoints.not-modified-answers-200', '--workers', '2'], 180_000);
    assert.equal(r.code, 0, r.out.slice(-3000));
    assert.match(r.out, /KILLED\s+endpoints\.not-modified-answers-200/);
    const unreadable = await cli(['self-test', '--base-url', front.url, '--ca', join(dir, 'none.pem'), '--output', dir]);
    assert.equal(unreadable.code, 2, unreadable.out);
    assert.match(unreadable.out, /^shop-conformance self-test: --ca: cannot read .*none\.pem/m);
  });

  test('run without --ca: exit 3 naming the TLS failure and the options that fix it', async () => {
    const r = await cli(['run', '--base-url', front.url, '--output', out()]);
    assert.equal(r.code, 3, r.out);
    assert.match(
      r.out,
      /TLS to https:\/\/127\.0\.0\.1:\d+ failed: unable to verify the first certificate \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/,
    );
    assert.match(r.out, /pass --ca <file>.*or --insecure/);
  });

  test('--insecure: doctor is ready and a run passes', async () => {
    const d = await cli(['doctor', '--base-url', front.url, '--insecure']);
    assert.equal(d.code, 0, d.out);
    // The exchanges fetch could not make: an event stream, chunked and held bodies, a declared length not sent.
    const r = await cli(
      [
        'run',
        '--base-url',
        front.url,
        '--insecure',
        '--level',
        'reference',
        '--grep',
        'event-stream|security-intents|write-cap',
        '--reporter',
        'list',
        '--output',
        out(),
      ],
      120_000,
    );
    assert.equal(r.code, 0, r.out);
  });

  test('another CA is not trusted: doctor exits 3', async () => {
    const other = makeTestCertificates();
    const d = await cli(['doctor', '--base-url', front.url, '--ca', other.caPath]);
    assert.equal(d.code, 3, d.out);
    assert.match(d.out, /TLS to .* failed/);
  });
});

describe('--ca is checked once', () => {
  for (const command of ['run', 'doctor']) {
    test(`${command} --ca <missing or not a certificate>: one line naming --ca, exit 2`, async () => {
      const dir = out();
      const notPem = join(dir, 'not.pem');
      writeFileSync(notPem, 'hello');
      for (const file of [join(dir, 'missing.pem'), notPem]) {
        const r = await cli([command, '--base-url', 'https://127.0.0.1:9', '--ca', file]);
        assert.equal(r.code, 2, r.out);
        const lines = r.out
          .trim()
          .split('\n')
          .filter((l) => !l.startsWith('npm warn'));
        assert.equal(lines.length, 1, r.out);
        assert.match(lines[0]!, new RegExp(`^shop-conformance ${command}: --ca: `));
      }
    });
  }
});

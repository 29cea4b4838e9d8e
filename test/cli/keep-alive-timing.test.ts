// The keep-alive check judges the timing of the comments, not the reference's own: a first comment a beat after the open
// conforms (spec, Events > Streaming: a comment at least every 15 seconds), a first comment later than 15 s does not.
// The reference opens its streams with a comment, so each deployment here is the reference behind a proxy that drops
// the comments of the stream's first seconds: those of the first 5 s (the next comes at 15 s, then every 15 s), or those
// of the first 20 s (the first one left comes at 30 s).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { behindProxy } from '../helpers/behind-proxy.js';
import { cli, describeOutcome, outputDir, tryReport } from '../helpers/cli.js';
import { dropComments } from '../../conformance/selftest/defects/06-events.js';
import { headerOf, type ProxyRules } from '../helpers/mutating-proxy.js';

const CHECK = 'endpoints.conversations.event-stream.keep-alive';

/** The reference's event streams without the comments of their first `ms` milliseconds. */
const silentFor = (ms: number): ProxyRules => ({
  streamFilter: (a) =>
    /^text\/event-stream/i.test(headerOf(a.headers, 'content-type') ?? '') ? dropComments((_i, since) => since >= ms) : undefined,
});

async function judge(rules: ProxyRules): Promise<{ code: number | null; status: string | undefined; reason?: string; message: string }> {
  return behindProxy(rules, async (url) => {
    const dir = outputDir();
    const r = await cli(['run', '--base-url', url, '--level', 'spec', '--grep', `\\[${CHECK.replace(/\./g, '\\.')}\\]`, '--output', dir]);
    const report = tryReport(dir);
    const check = report?.checks.find((c) => c.id === CHECK);
    return { code: r.code, status: check?.status, reason: check?.reason, message: `exit ${r.code}\n${describeOutcome(report, r.out)}` };
  });
}

describe('the keep-alive check judges when comments come', { concurrency: 2 }, () => {
  test('a first comment 15 s after the open, then one every 15 s: passes', { timeout: 120_000 }, async () => {
    const r = await judge(silentFor(5_000));
    assert.equal(r.status, 'passed', r.message);
    assert.equal(r.code, 0, r.message);
  });

  test('a first comment 30 s after the open: fails, naming EVT-STREAM-1', { timeout: 120_000 }, async () => {
    const r = await judge(silentFor(20_000));
    assert.equal(r.status, 'failed', r.message);
    assert.equal(r.code, 1, r.message);
    assert.match(r.reason ?? '', /EVT-STREAM-1/);
  });
});

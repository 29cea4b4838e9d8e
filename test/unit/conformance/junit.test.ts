// JUnit reclassification (conformance/engine/report/junit.ts): clause failures become <failure>, other errors stay <error>.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reclassifyJUnit, testcaseName } from '../../../conformance/engine/report/junit.js';

const xml = [
  '<testsuites id="" name="" tests="3" failures="0" skipped="0" errors="2" time="1">',
  '<testsuite name="a.check.ts" timestamp="t" hostname="" tests="2" failures="0" skipped="0" time="0.1" errors="2">',
  '<testcase name="[x] one" classname="a.check.ts" time="0.1">',
  '<error message="[RES-PROBLEM-4] title: expected &quot;Unauthorized&quot;" type="Error">',
  '<![CDATA[details]]>',
  '</error>',
  '</testcase>',
  '<testcase name="[y] two" classname="a.check.ts" time="30">',
  '<error message="Test timeout of 30000ms exceeded." type="Error">',
  '<![CDATA[timeout]]>',
  '</error>',
  '</testcase>',
  '</testsuite>',
  '<testsuite name="b.check.ts" timestamp="t" hostname="" tests="1" failures="0" skipped="0" time="0.1" errors="0">',
  '<testcase name="[z] three" classname="b.check.ts" time="0.1">',
  '</testcase>',
  '</testsuite>',
  '</testsuites>',
].join('\n');

test('the error of a check that recorded a failed verdict becomes a <failure>; a timeout stays an <error>; every count follows', () => {
  const out = reclassifyJUnit(xml, new Set(['[x] one']));
  assert.match(
    out,
    /<failure message="\[RES-PROBLEM-4\] title: expected &quot;Unauthorized&quot;" type="ConformanceFailure">\n<!\[CDATA\[details\]\]>\n<\/failure>/,
  );
  assert.match(out, /<error message="Test timeout of 30000ms exceeded." type="Error">\n<!\[CDATA\[timeout\]\]>\n<\/error>/);
  assert.match(out, /<testsuites [^>]*failures="1" [^>]*errors="1"/);
  assert.match(out, /<testsuite name="a.check.ts" [^>]*failures="1" [^>]*errors="1">/);
  assert.match(out, /<testsuite name="b.check.ts" [^>]*failures="0" [^>]*errors="0">/);
  assert.equal(reclassifyJUnit(out, new Set(['[x] one'])), out, 'idempotent');
});

test("a test case is told by its name, escaped as Playwright writes it; another test's error stays an error", () => {
  const named = xml.replace('name="[x] one"', 'name="[x] a &quot;quoted&quot; &amp; one"');
  assert.match(reclassifyJUnit(named, new Set(['[x] a "quoted" & one'])), /<failure message="\[RES-PROBLEM-4\]/);
  assert.doesNotMatch(reclassifyJUnit(xml, new Set(['[z] three'])), /<failure /);
  assert.equal(testcaseName({ titlePath: () => ['', 'project', 'a.check.ts', '[x] one'] }), '[x] one');
});

test('a skipped test case says why; one the run stopped before says it was not run', () => {
  const skippedXml = xml.replace(
    '<testcase name="[z] three" classname="b.check.ts" time="0.1">\n',
    '<testcase name="[z] three" classname="b.check.ts" time="0.1">\n<skipped>\n</skipped>\n',
  );
  const out = reclassifyJUnit(skippedXml, new Set(), new Map([['[z] three', 'not run: the run stopped after --max-failures 1']]));
  assert.match(out, /<testcase name="\[z\] three"[^>]*>\n<skipped message="not run: the run stopped after --max-failures 1">\n<\/skipped>/);
  assert.match(reclassifyJUnit(skippedXml, new Set()), /\n<skipped>\n/, 'without a reason it stays as Playwright wrote it');
});

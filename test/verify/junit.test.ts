import { describe, expect, it } from 'vitest';
import { renderJunit, xmlAttribute, xmlText } from '../../src/results/junit.ts';
import type { CheckResult } from '../../src/contract/result-schema.ts';

const checks: CheckResult[] = [
  { id: 'envelope', verdict: 'pass', detail: 'all fine', evidence: { responses: 8 }, durationMs: 72.6 },
  {
    id: 'ratelimit.threshold',
    verdict: 'fail',
    detail: 'admitted 11 > 10 <"&\'>',
    evidence: { body: '<html>\u0007</html>' },
    durationMs: 2100,
    notes: ['sequential bursts'],
  },
  { id: 'tls', verdict: 'skip', detail: 'plain http\ntarget', evidence: {} },
];

describe('renderJunit', () => {
  const xml = renderJunit(checks, {
    name: 'rpcload verify http://api',
    timestamp: new Date('2026-11-22T12:00:00Z'),
    durationMs: 21_000,
    properties: { target: 'http://api' },
  });

  it('writes one testsuite with one testcase per check and the counts', () => {
    expect(
      xml.startsWith(
        '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="rpcload verify http://api" tests="3" failures="1" errors="0" skipped="1" time="21.000">',
      ),
    ).toBe(true);
    expect(xml.match(/<testsuite /g)).toHaveLength(1);
    expect(xml.match(/<testcase /g)).toHaveLength(3);
    expect(xml).toContain('<testcase classname="rpcload.verify" name="envelope" time="0.073">');
    expect(xml).toContain('<property name="target" value="http://api"/>');
  });

  it('turns a failure into <failure> with the reason and the evidence, a skip into <skipped>', () => {
    expect(xml).toContain(
      '<failure message="admitted 11 &gt; 10 &lt;&quot;&amp;&apos;&gt;" type="fail">admitted 11 &gt; 10',
    );
    expect(xml).toContain('&quot;body&quot;: &quot;&lt;html&gt;\\u0007&lt;/html&gt;&quot;');
    expect(xml).toContain('- sequential bursts');
    expect(xml).toContain('<skipped message="plain http&#10;target"/>');
  });

  it('writes a skip that fails the run as <error> typed with its class, with the same reason', () => {
    const broken: CheckResult = {
      id: 'envelope',
      verdict: 'skip',
      skipClass: 'target_broken',
      detail: 'no request got a response',
      evidence: {},
    };
    const withError = renderJunit([broken, checks[2]!], {
      name: 's',
      timestamp: new Date(0),
      durationMs: 1,
      blockingSkips: ['envelope'],
    });
    expect(withError).toContain('tests="2" failures="0" errors="1" skipped="1"');
    expect(withError).toContain(
      '<error message="no request got a response" type="skip:target_broken">no request got a response',
    );
    expect(withError).not.toContain('<skipped message="no request got a response"');
  });

  it('escapes markup and drops characters XML cannot carry', () => {
    expect(xmlText('a<b>&"\'\u0001c')).toBe('a&lt;b&gt;&amp;&quot;&apos;c');
    expect(xmlAttribute('x\ny\tz')).toBe('x&#10;y&#9;z');
  });

  it('is well-formed: every element closes', () => {
    const opened = [...xml.matchAll(/<(testsuites|testsuite|testcase|failure|system-out|properties)[ >]/g)].length;
    const closed = [...xml.matchAll(/<\/(testsuites|testsuite|testcase|failure|system-out|properties)>/g)].length;
    expect(opened).toBe(closed);
  });
});

/**
 * JUnit XML for CI test reports: one testsuite, one testcase per check. A failed check is a
 * `<failure>` whose message is the one-line reason and whose text holds the evidence; a skip that
 * makes the verify fail (the target broke, or nothing passed: see verify/skip-policy) is an
 * `<error>` typed with its skip class, so CI never shows it green; an accepted skip is
 * `<skipped message=…/>`. Everything is XML-escaped (server text included).
 */
import type { CheckResult } from '../contract/result-schema.ts';

export interface JunitSuiteInfo {
  /** Suite name, e.g. `rpcload verify http://api.example`. */
  readonly name: string;
  readonly timestamp: Date;
  readonly durationMs: number;
  /** Shown as `<property>` elements (e.g. target, limit). */
  readonly properties?: Readonly<Record<string, string>>;
  /** Ids of skipped checks that make the run fail: written as `<error>`, not `<skipped>`. */
  readonly blockingSkips?: readonly string[];
}

// XML 1.0 forbids most control characters even when escaped: drop them.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text content: markup characters escaped, invalid characters removed. */
export function xmlText(value: string): string {
  return value.replace(INVALID_XML, '').replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

/** An attribute value: as text, with line breaks and tabs kept as character references. */
export function xmlAttribute(value: string): string {
  return xmlText(value).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const seconds = (ms: number | undefined): string => ((ms ?? 0) / 1000).toFixed(3);

function body(check: CheckResult): string {
  const notes = check.notes?.length ? `\n\nnotes:\n${check.notes.map((n) => `- ${n}`).join('\n')}` : '';
  return `${check.detail}\n\nevidence:\n${JSON.stringify(check.evidence, null, 2)}${notes}`;
}

function testcase(check: CheckResult, className: string, blocking: boolean): string {
  const open = `    <testcase classname="${xmlAttribute(className)}" name="${xmlAttribute(check.id)}" time="${seconds(check.durationMs)}"`;
  switch (check.verdict) {
    case 'fail':
      return `${open}>\n      <failure message="${xmlAttribute(check.detail)}" type="fail">${xmlText(body(check))}</failure>\n    </testcase>`;
    case 'skip':
      if (blocking) {
        const type = `skip:${check.skipClass ?? 'inconclusive'}`;
        return `${open}>\n      <error message="${xmlAttribute(check.detail)}" type="${xmlAttribute(type)}">${xmlText(body(check))}</error>\n    </testcase>`;
      }
      return `${open}>\n      <skipped message="${xmlAttribute(check.detail)}"/>\n    </testcase>`;
    case 'pass':
      return `${open}>\n      <system-out>${xmlText(body(check))}</system-out>\n    </testcase>`;
  }
}

export function renderJunit(checks: readonly CheckResult[], suite: JunitSuiteInfo, className = 'rpcload.verify'): string {
  const blocking = new Set(suite.blockingSkips ?? []);
  const isError = (c: CheckResult): boolean => c.verdict === 'skip' && blocking.has(c.id);
  const failures = checks.filter((c) => c.verdict === 'fail').length;
  const errors = checks.filter(isError).length;
  const skipped = checks.filter((c) => c.verdict === 'skip' && !isError(c)).length;
  const counts = `tests="${checks.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(suite.durationMs)}"`;
  const properties = Object.entries(suite.properties ?? {});
  const propertyXml = properties.length
    ? `    <properties>\n${properties.map(([name, value]) => `      <property name="${xmlAttribute(name)}" value="${xmlAttribute(value)}"/>`).join('\n')}\n    </properties>\n`
    : '';
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlAttribute(suite.name)}" ${counts}>`,
    `  <testsuite name="${xmlAttribute(suite.name)}" ${counts} timestamp="${suite.timestamp.toISOString()}">`,
    `${propertyXml}${checks.map((c) => testcase(c, className, isError(c))).join('\n')}`,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}

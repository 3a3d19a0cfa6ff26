/**
 * What a verify's verdicts add up to. A skipped check is not a pass: a check that could not run
 * because the target is broken (or rpcload itself failed), or a run where nothing passed, makes
 * the whole verify fail unless `--allow-skip` says that skip was expected. One pure function,
 * shared by the exit code, the table, `--json` and JUnit so that they never disagree.
 */
import { RpcloadError } from '../errors.ts';
import type { CheckResult, SkipClass } from '../contract/result-schema.ts';
import { CHECK_IDS, isCheckId, type CheckId } from './check-ids.ts';

export const SKIP_CLASSES: readonly SkipClass[] = [
  'not_applicable',
  'target_broken',
  'inconclusive',
  'interrupted',
  'internal_error',
];

/** Skips that make a verify fail on their own: the target did not answer usably, or rpcload broke. */
const BLOCKING_CLASSES: ReadonlySet<SkipClass> = new Set(['target_broken', 'internal_error']);

/** `--allow-skip`: every skip (`all`), or the skip classes and check ids listed; empty = none. */
export type AllowedSkips = 'all' | readonly (SkipClass | CheckId)[];

/** `--allow-skip [list]`: true (no list) allows every skip; else comma-separated classes and check ids. */
export function parseAllowSkipFlag(value: string | true | undefined): AllowedSkips {
  if (value === undefined) return [];
  if (value === true || value.trim() === 'all') return 'all';
  const items = value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  const isClass = (item: string): item is SkipClass => (SKIP_CLASSES as readonly string[]).includes(item);
  const unknown = items.filter((item) => !isClass(item) && !isCheckId(item));
  if (unknown.length > 0 || items.length === 0) {
    throw new RpcloadError(
      'bad_flag',
      `--allow-skip: unknown skip class or check id ${unknown.map((item) => JSON.stringify(item)).join(', ') || '(none given)'}; classes: ${SKIP_CLASSES.join(', ')}; check ids: ${CHECK_IDS.join(', ')}`,
    );
  }
  return items.filter((item): item is SkipClass | CheckId => isClass(item) || isCheckId(item));
}

/** The class of a skipped check; files written before skip classes existed read as `inconclusive`. */
export function skipClassOf(check: CheckResult): SkipClass | null {
  return check.verdict === 'skip' ? (check.skipClass ?? 'inconclusive') : null;
}

export interface VerifyOutcome {
  /** No check failed and no skip stands in the way. */
  readonly ok: boolean;
  /** The skipped checks that make the verify fail (rendered as errors in JUnit). */
  readonly blockingSkips: readonly string[];
  /** One line saying why the verify is not a pass; null when it is. */
  readonly reason: string | null;
}

export function judgeVerifyOutcome(checks: readonly CheckResult[], allowed: AllowedSkips): VerifyOutcome {
  const isAllowed = (check: CheckResult): boolean =>
    allowed === 'all' || allowed.includes(skipClassOf(check)!) || (allowed as readonly string[]).includes(check.id);
  const failed = checks.filter((c) => c.verdict === 'fail');
  const skipped = checks.filter((c) => c.verdict === 'skip' && !isAllowed(c));
  const broken = skipped.filter((c) => BLOCKING_CLASSES.has(skipClassOf(c)!));
  const nothingPassed = !checks.some((c) => c.verdict === 'pass');
  const blocking = broken.length > 0 ? broken : nothingPassed ? skipped : [];
  const ids = (list: readonly CheckResult[]): string => list.map((c) => c.id).join(', ');
  const reasons: string[] = [];
  if (failed.length > 0) reasons.push(`${failed.length} check(s) failed (${ids(failed)})`);
  if (broken.length > 0) {
    const internal = broken.some((c) => c.skipClass === 'internal_error');
    reasons.push(
      `${broken.length} check(s) could not run because the target ${internal ? 'or rpcload ' : ''}broke (${ids(broken)})`,
    );
  } else if (blocking.length > 0)
    reasons.push(`nothing passed: ${blocking.length} check(s) skipped (${ids(blocking)})`);
  const hint = blocking.length > 0 ? '; --allow-skip accepts expected skips' : '';
  return {
    ok: reasons.length === 0,
    blockingSkips: blocking.map((c) => c.id),
    reason: reasons.length === 0 ? null : `not a pass: ${reasons.join('; ')}${hint}`,
  };
}

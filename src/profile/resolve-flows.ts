/**
 * The flow parts of a step — `save`, `expect`, `onFail`, `think` — resolved into plan data, and
 * the check that every `{{vars.NAME}}` a step names is saved by an earlier step of its scenario and
 * every `{{data.SET.COLUMN}}` names a declared data set. Save paths are parsed here once, so the
 * driver only walks their segments.
 */
import type { ExpectPlan, SavePlan, ThinkPlan } from './plan.ts';
import { PROFILE_DEFAULTS as D } from './profile-defaults.ts';
import type { StepSettings, ThinkSettings } from './profile-schema.ts';
import { childPointer, expected, type Problem } from './problems.ts';
import { ALLOW_ZERO, durationMs } from './resolve-durations.ts';
import type { TemplateReference } from './template.ts';

const PATH_SEGMENT = /([^.[\]]+)|\[(\d+)\]/g;
const PATH_SHAPE = /^[^.[\]]+(\[\d+\])*(\.[^.[\]]+(\[\d+\])*)*$/;

/** `items[0].sku` → ['items', 0, 'sku']; null when the text is not such a path. */
export function parseDataPath(text: string): (string | number)[] | null {
  if (!PATH_SHAPE.test(text)) return null;
  return [...text.matchAll(PATH_SEGMENT)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!));
}

export function resolveSaves(save: StepSettings['save'], pointer: string, problems: Problem[]): SavePlan[] {
  return Object.entries(save ?? {}).flatMap(([name, path]) => {
    const segments = parseDataPath(path);
    if (segments === null) {
      problems.push(
        expected(childPointer(pointer, name), 'a path into the reply\'s data like "id" or "items[0].sku"', path),
      );
      return [];
    }
    return [{ name, path, segments }];
  });
}

export function resolveExpect(expect: StepSettings['expect']): ExpectPlan | null {
  if (expect === undefined) return null;
  // An expected error code implies an error envelope; an expected data subset a success.
  const status = expect.status ?? (expect.error !== undefined ? 'error' : expect.data !== undefined ? 'success' : null);
  return { status, error: expect.error ?? null, data: expect.data === undefined ? null : structuredClone(expect.data) };
}

/** Contradictions inside one expectation (an error code with status success, …). */
export function expectProblems(expect: StepSettings['expect'], pointer: string): Problem[] {
  if (expect === undefined) return [];
  const problems: Problem[] = [];
  if (expect.error !== undefined && expect.status === 'success')
    problems.push(expected(`${pointer}/error`, 'no error code beside status "success"', expect.error));
  if (expect.data !== undefined && (expect.status === 'error' || expect.error !== undefined))
    problems.push({
      path: `${pointer}/data`,
      message: 'expected no data subset beside an expected error (an error reply has no data)',
    });
  return problems;
}

export function resolveThink(think: ThinkSettings | undefined, pointer: string, problems: Problem[]): ThinkPlan {
  const value = think ?? D.step.think;
  if (typeof value === 'string') return { kind: 'fixed', ms: durationMs(value, pointer, problems, ALLOW_ZERO) };
  if ('uniform' in value) {
    const [minMs, maxMs] = value.uniform.map((text, i) =>
      durationMs(text, `${pointer}/uniform/${i}`, problems, ALLOW_ZERO),
    ) as [number, number];
    if (maxMs < minMs)
      problems.push(expected(`${pointer}/uniform`, 'a shortest pause no longer than the longest', value.uniform));
    return { kind: 'uniform', minMs, maxMs };
  }
  return { kind: 'exponential', meanMs: durationMs(value.exponential, `${pointer}/exponential`, problems, ALLOW_ZERO) };
}

/**
 * Checks a scenario's template references in step order: a `{{vars.NAME}}` must be saved by an
 * earlier step, a `{{data.SET…}}` must name a declared set. Collects each set's columns into
 * `columns` (checked against the file's header before the run).
 */
export class FlowReferences {
  private saved: string[] = [];

  /** `setupSaves`: what the profile's setup steps save, what `{{setup.NAME}}` may read (null: in setup steps themselves, nothing yet). */
  constructor(
    private readonly dataSets: ReadonlySet<string>,
    private readonly columns: Map<string, Set<string>>,
    private readonly problems: Problem[],
    private readonly setupSaves: readonly string[] | null = [],
  ) {}

  /** A new scenario: nothing saved yet. */
  startScenario(): void {
    this.saved = [];
  }

  /** One step's references (read before its own saves), then its saves. */
  step(references: readonly TemplateReference[], saves: readonly SavePlan[]): void {
    for (const ref of references) {
      if (ref.kind === 'var') {
        if (!this.saved.includes(ref.name))
          this.problems.push({
            path: ref.pointer,
            message: `{{vars.${ref.name}}} is never saved before this step; saved: ${this.saved.length > 0 ? this.saved.join(', ') : 'none'}`,
          });
      } else if (ref.kind === 'setup') {
        const saves = this.setupSaves ?? [];
        if (!saves.includes(ref.name))
          this.problems.push({
            path: ref.pointer,
            message:
              this.setupSaves === null
                ? `{{setup.${ref.name}}} in a setup step: setup values exist once setup is over (use {{vars.${ref.name}}} within setup)`
                : `{{setup.${ref.name}}} is never saved by the profile's setup steps; saved: ${saves.length > 0 ? saves.join(', ') : 'none'}`,
          });
      } else if (!this.dataSets.has(ref.set)) {
        const declared = [...this.dataSets];
        this.problems.push({
          path: ref.pointer,
          message: `{{data.${ref.set}.${ref.column}}} names no data set of the profile's "data" section; declared: ${declared.length > 0 ? declared.join(', ') : 'none'}`,
        });
      } else {
        let set = this.columns.get(ref.set);
        if (set === undefined) this.columns.set(ref.set, (set = new Set()));
        set.add(ref.column);
      }
    }
    for (const save of saves) if (!this.saved.includes(save.name)) this.saved.push(save.name);
  }
}

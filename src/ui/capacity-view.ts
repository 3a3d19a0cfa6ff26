/**
 * The live view of `rpcload capacity`: the search as it goes. On a terminal each step gets the run
 * dashboard of its own load, headed by the step, its load and the bracket so far; when a step has
 * been judged its one-line row (offered, achieved, percentiles, verdict, bracket) is printed, so
 * the steps so far stay on screen above the current one. Plain mode prints the start and the row
 * of each step on stderr; `none` prints nothing. A search of one workload among several says
 * which in the step's title (its dashboard shows every workload of the step).
 */
import type { CapacityBracket, CapacityProgress, LiveView } from '../contract/live-view.ts';
import { capacityStepRows } from '../results/capacity-summary.ts';
import { createRunView } from './create-view.ts';
import type { UiMode } from './ui-mode.ts';

export interface CapacityView {
  onProgress(event: CapacityProgress): void;
  /** Stop whatever is drawing (on the way out, also after an error). */
  stop(): void;
}

const writeLine = (line: string): void => void process.stderr.write(`${line}\n`);

function bracketText(bracket: CapacityBracket, unit: string): string {
  const show = (n: number | null): string => (n === null ? '–' : `${n}${unit}`);
  return `bracket [${show(bracket.lastPass)}, ${show(bracket.firstFail)}]`;
}

export function createCapacityView(
  mode: Exclude<UiMode, 'auto'>,
  context: {
    readonly profile: string;
    readonly target: string;
    readonly resultPath: string;
    readonly model: 'open' | 'closed';
    /** capacity --replay: the loads are speeds of the recording. */
    readonly replay?: boolean;
    /** The workload searched, when the profile has several; null or absent: not said. */
    readonly workload?: string | null;
  },
  options: { readonly onQuit: () => void },
): CapacityView {
  const unit = context.replay === true ? '×' : context.model === 'open' ? '/s' : ' users';
  let current: LiveView | null = null;
  const stopCurrent = (): void => {
    current?.stop();
    current = null;
  };
  return {
    onProgress(event) {
      if (mode === 'none') return;
      if (event.kind === 'step-start') {
        const { step, load, bracket } = event;
        const what = context.workload == null ? '' : `${context.workload} `;
        const title = `${step.kind === 'confirm' ? 'confirm' : 'step'} ${step.index}: ${what}${step.load}${unit} · ${bracketText(bracket, unit)}`;
        if (mode === 'plain') return writeLine(`${title} …`);
        stopCurrent();
        const phases = [
          ...(step.warmUpPhase === null
            ? []
            : [{ name: step.warmUpPhase, durationMs: step.warmUpMs, load: `${step.load}${unit}` }]),
          { name: step.phase, durationMs: step.holdMs, load: `${step.load}${unit}` },
        ];
        current = createRunView(
          mode,
          {
            header: {
              profile: `${context.profile} capacity${context.workload == null ? '' : ` of ${context.workload}`}`,
              target: context.target,
              model: title,
              phases,
              totalDurationMs: step.warmUpMs + step.holdMs,
              resultPath: context.resultPath,
            },
            snapshot: () => load.snapshot(),
          },
          options,
        );
        current.start();
        return;
      }
      stopCurrent();
      const [, row] = capacityStepRows({
        model: context.model,
        ...(context.replay === true ? { speed: null } : {}),
        steps: [event.step],
      });
      writeLine(`${row ?? ''}   ${bracketText(event.bracket, unit)}`);
    },
    stop: stopCurrent,
  };
}

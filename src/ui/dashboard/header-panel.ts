/**
 * The three header lines: what runs against what (profile, target, model), where the run is
 * (phase, progress bar, elapsed / total), and where the result goes, with the key hints — or the
 * STOPPING badge once the user asked to stop. When a threshold stops the run (abortOnFail), the
 * third line says which, in place of the result path: that is what the user must see.
 */
import { formatDurationMs } from '../../util/duration.ts';
import { cellText, truncate } from '../text/cell-text.ts';
import { formatCount, formatRate, progressBar } from '../text/format.ts';
import { fitLine, seg, spread, type Segment, type StyledLine } from '../text/styled.ts';
import { phaseAt } from '../plain-progress.ts';
import type { RunFrameModel } from './run-model.ts';

export function headerLines(model: RunFrameModel, width: number): StyledLine[] {
  const { header, snapshot } = model;
  const elapsedMs = Math.min(snapshot.elapsedMs, header.totalDurationMs);
  const { index, phase } = phaseAt(header.phases, snapshot.elapsedMs);
  const title: Segment[] = [
    seg('rpcload run', 'strong'),
    seg(` · ${cellText(header.profile, 60)} · `),
    seg(cellText(header.target, 120), 'accent'),
  ];
  const line1 = spread(title, [seg(cellText(header.model, 60), 'dim')], width);

  const phaseText =
    phase === undefined
      ? ''
      : `phase ${index + 1}/${header.phases.length} ${cellText(phase.name, 40)} (${cellText(phase.load, 40)})  `;
  const clock = ` ${formatDurationMs(elapsedMs)} / ${formatDurationMs(header.totalDurationMs)}`;
  const fraction = header.totalDurationMs > 0 ? elapsedMs / header.totalDurationMs : 1;
  const percent = ` ${Math.floor(fraction * 100)}%`;
  const barWidth = Math.max(0, Math.min(40, width - phaseText.length - clock.length - percent.length));
  const line2: StyledLine = [
    seg(truncate(phaseText, width)),
    seg(progressBar(fraction, barWidth), 'accent'),
    seg(clock),
    seg(percent, 'dim'),
  ];

  const right: Segment[] = model.stopping
    ? [seg(' STOPPING… ', 'inverse')]
    : [
        seg(`${formatCount(snapshot.requests)} req · ${formatRate(snapshot.rpsLastSecond)}/s  `),
        seg('? help  q stop', 'dim'),
      ];
  const line3 =
    model.stopReason === null
      ? spread([seg('result ', 'dim'), seg(cellText(header.resultPath, 200))], right, width)
      : fitLine([seg(' ABORTING ', 'inverse'), seg(` ${cellText(model.stopReason, 200)}`, 'bad')], width);
  return [line1, line2, line3];
}

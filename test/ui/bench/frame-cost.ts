/**
 * The dashboard's time on the event loop per frame, which is what it can take from the driver:
 * pulling a snapshot from a recorder holding a realistic run (24 clients, 5 methods, 200,000
 * requests), rendering the frame, and handing the cells to blessed (to a stream that discards
 * them). Medians of many frames at three terminal sizes.
 *
 *   npx tsx test/ui/bench/frame-cost.ts
 */
import { PassThrough } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { Recorder } from '../../../src/metrics/recorder.ts';
import { renderRunFrame } from '../../../src/ui/dashboard/run-frame.ts';
import { RateWindow } from '../../../src/ui/dashboard/run-model.ts';
import { openFrameScreen } from '../../../src/ui/terminal/frame-screen.ts';
import { sample } from '../../support/recorder-fixtures.ts';
import { HEADER } from '../../support/live-fixtures.ts';
import { createRandom } from '../../../src/util/random.ts';

const clients = Array.from({ length: 24 }, (_, i) => `client-${i + 1}`);
const recorder = new Recorder(
  { methods: ['ping', 'echo', 'items.list', 'work', 'flaky'], phases: ['ramp-up', 'steady'], clients },
  { rateLimit: { limit: 100, windowMs: 10_000, policy: 'honour' } },
);
const random = createRandom(7);
const outcomes = [
  'success',
  'success',
  'success',
  'success',
  'error:rate_limit_exceeded',
  'error:unexpected_error',
  'transport:UND_ERR_SOCKET',
];
for (let i = 0; i < 200_000; i++) {
  const atMs = i / 2; // 2,000 requests a second for 100 s
  const outcome = outcomes[Math.floor(random() * outcomes.length)]!;
  recorder.record(
    sample({
      methodIndex: i % 5,
      phaseIndex: 1,
      clientIndex: i % 24,
      outcome,
      status: outcome === 'success' ? 200 : 429,
      sentAtMs: atMs,
      doneAtMs: atMs + 5,
      latencyUs: 1000 + random() * 100_000,
      serviceUs: 900 + random() * 90_000,
      lagUs: random() * 2000,
      retryAfterS: outcome === 'error:rate_limit_exceeded' ? 3 : -1,
      detail: outcome === 'success' ? '' : `detail ${i % 5}`,
    }),
  );
}

const median = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const p99 = (values: number[]): number => values.sort((a, b) => a - b)[Math.floor(values.length * 0.99)]!;

for (const [width, height] of [
  [80, 24],
  [120, 40],
  [200, 60],
] as const) {
  const output = Object.assign(new PassThrough(), {
    isTTY: true,
    columns: width,
    rows: height,
  }) as unknown as NodeJS.WriteStream;
  output.resume(); // discard
  const input = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  const screen = openFrameScreen({ input, output, colour: true, onKey: () => undefined, onResize: () => undefined });
  const rates = new RateWindow();
  const snapshotMs: number[] = [];
  const frameMs: number[] = [];
  const drawMs: number[] = [];
  for (let i = 0; i < 600; i++) {
    const a = performance.now();
    const snapshot = recorder.snapshot(100_000 + i * 250);
    const b = performance.now();
    const lines = renderRunFrame(
      {
        header: HEADER,
        snapshot,
        gauges: null,
        stopReason: null,
        earlier: rates.push({ elapsedMs: snapshot.elapsedMs, outcomes: snapshot.outcomes }),
        stopping: false,
        notices: [],
        help: false,
      },
      { width, height },
    );
    const c = performance.now();
    screen.draw(lines);
    const d = performance.now();
    if (i >= 100) {
      // the first frames warm the JIT up
      snapshotMs.push(b - a);
      frameMs.push(c - b);
      drawMs.push(d - c);
    }
  }
  screen.destroy();
  const total = snapshotMs.map((s, i) => s + frameMs[i]! + drawMs[i]!);
  console.log(
    `${`${width}×${height}`.padEnd(7)} snapshot ${median(snapshotMs).toFixed(2)} ms · frame ${median(frameMs).toFixed(2)} ms · blessed ${median(drawMs).toFixed(2)} ms · total median ${median(total).toFixed(2)} ms, p99 ${p99(total).toFixed(2)} ms → ${((4 * median(total)) / 10).toFixed(2)}% of one core at 4 frames/s`,
  );
}
process.exit(0);

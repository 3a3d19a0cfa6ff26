/**
 * A tiny program for the verify view's terminal test: opens `createVerifyView('tui', …)` and feeds
 * it a scripted series of progress records (as the verifier would), one every 200 ms, then waits
 * for `q`. It holds after the first two (two checks running) until a `>` is typed, so a test on a
 * busy machine cannot miss that state between two captures. Run with
 * `npx tsx test/support/verify-dashboard-driver.ts`.
 */
import { createVerifyView } from '../../src/ui/create-view.ts';
import type { CheckProgress } from '../../src/contract/live-view.ts';

const IDS = [
  'envelope',
  'auth.missing_token',
  'auth.invalid_token',
  'ratelimit.threshold',
  'ratelimit.response',
  'payload.limit',
  'pagination',
  'tls',
];

export const SCRIPT: readonly Omit<CheckProgress, 'atMs'>[] = [
  { id: 'envelope', state: 'running', detail: 'on client-1' },
  { id: 'auth.missing_token', state: 'running', detail: 'on client-2' },
  { id: 'envelope', state: 'pass', detail: '14 responses, all valid envelopes' },
  { id: 'tls', state: 'skip', detail: 'plain http target: nothing to negotiate' },
  { id: 'auth.missing_token', state: 'pass', detail: '401 with WWW-Authenticate: Bearer' },
  { id: 'ratelimit.threshold', state: 'running', detail: 'on client-3' },
  { id: 'payload.limit', state: 'running', detail: 'on client-4' },
  {
    id: 'payload.limit',
    state: 'fail',
    detail: 'a body of 100,001 bytes was accepted \u001b]0;pwned\u0007\u001b[2J(limit not enforced)',
  },
  {
    id: 'ratelimit.threshold',
    state: 'pass',
    detail: 'exactly 100 admitted, request 101 refused; fresh quota after Retry-After',
  },
];

const view = createVerifyView(
  'tui',
  { target: 'http://127.0.0.1:9999', checkIds: IDS, resultPath: 'results/verify-driver.json' },
  {
    onQuit: () => {
      view.stop();
      process.stdout.write('driver: verify view stopped\n');
      process.exit(130);
    },
  },
);
view.start();
const startedAt = Date.now();
const play = (records: readonly Omit<CheckProgress, 'atMs'>[], afterMs: number): void =>
  records.forEach((record, i) =>
    setTimeout(() => view.onProgress({ ...record, atMs: Date.now() - startedAt }), afterMs + i * 200),
  );
const HELD_AFTER = 2;
play(SCRIPT.slice(0, HELD_AFTER), 800);
// blessed reads the keys too (q, ?); '>' is bound to nothing there.
const goOn = (data: Buffer): void => {
  if (!data.includes('>')) return;
  process.stdin.off('data', goOn);
  play(SCRIPT.slice(HELD_AFTER), 0);
};
process.stdin.on('data', goOn);
setInterval(() => undefined, 1000);

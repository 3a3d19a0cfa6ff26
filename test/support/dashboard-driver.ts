/**
 * A tiny program for the terminal tests: shows the run dashboard over a fake, moving source
 * (no load, no server), then does what argv[2] says, so the tests can check that the terminal is
 * restored however the process ends. Run with `npx tsx test/support/dashboard-driver.ts MODE`.
 *   throw   — an uncaught exception after the first frames (Node prints it and exits 1)
 *   reject  — an unhandled promise rejection (same, by Node's default)
 *   exit    — process.exit(3) without stopping the view
 *   hostile — server strings full of escape sequences; waits for q
 */
import { createRunView } from '../../src/ui/create-view.ts';
import type { ViewSource } from '../../src/contract/live-view.ts';
import { client, HEADER, snapshot } from './live-fixtures.ts';

const mode = process.argv[2] ?? 'hostile';
const HOSTILE = '\u001b]0;pwned\u0007\u001b[2J\u001b[H{red-fg}injected{/red-fg}\u0007';
const startedAt = Date.now();
const hostile = mode === 'hostile';

const source: ViewSource = {
  header: hostile ? { ...HEADER, profile: `evil${HOSTILE}profile`, target: `http://evil${HOSTILE}/` } : HEADER,
  snapshot: () => {
    const elapsedMs = Date.now() - startedAt;
    const requests = Math.floor(elapsedMs / 10);
    return snapshot({
      elapsedMs,
      requests,
      success: requests,
      outcomes: hostile ? { success: requests, [`error:${HOSTILE}code`]: 3 } : { success: requests },
      errors: 0,
      clients: hostile ? [client(`client${HOSTILE}x`, { refused: 2 })] : [client('client-1')],
      recentErrors: hostile
        ? [
            {
              source: 'api',
              outcome: `error:${HOSTILE}code`,
              detail: `detail${HOSTILE}end`,
              count: 3,
              firstAtMs: 0,
              lastAtMs: 0,
            },
          ]
        : [],
    });
  },
};

const view = createRunView('tui', source, {
  onQuit: () => {
    view.stop();
    process.stdout.write('driver: view stopped\n');
    process.exit(130);
  },
});
view.start();
setInterval(() => undefined, 1000); // keep running until told otherwise

setTimeout(() => {
  if (mode === 'throw') throw new Error('boom from the driver');
  if (mode === 'reject') void Promise.reject(new Error('rejected in the driver'));
  if (mode === 'exit') process.exit(3);
}, 1500);

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runRpcload } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-ui-plain-');

describe('rpcload run --ui tui without a terminal', () => {
  it('falls back to plain progress lines: no escape sequences in a pipe', { timeout: 60_000 }, async () => {
    const run = await runRpcload(
      ['run', '--rate', '20', '--duration', '3s', '--ui', 'tui', '--out', join(dir, 'fallback.json')],
      {
        env: { CI: undefined, NO_COLOR: undefined },
      },
    );
    expect(run.stderr).toMatch(/\[ *[\d.]+m?s \/ 3s\] .* requests \d+/);
    expect(run.stdout).toMatch(/rpcload run {2}demo {2}completed/);
    // eslint-disable-next-line no-control-regex
    expect(run.stderr + run.stdout).not.toMatch(/\u001b\[\?1049|\u001b\[[0-9;]*[HJ]/); // no alternate screen, no cursor moves
  });
});

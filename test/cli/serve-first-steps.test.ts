/** The first steps `rpcload serve` prints — its ready-to-paste command, its certificate file — work as printed. */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { runRpcload } from '../support/cli.ts';
import { startServeProcess } from '../support/serve-process.ts';
import { useTempDir } from '../support/temp-dir.ts';

const dir = useTempDir('rpcload-serve-first-');

/** The printed `npx rpcload run …` command's arguments, shortened to 1 s and written to `out`. */
function pastedArgs(printed: string, out: string): string[] {
  const args = printed.trim().split(/\s+/).slice(2); // drop "npx rpcload"
  const at = args.indexOf('--duration');
  args[at + 1] = '1s';
  return [...args, '--ui', 'none', '--out', out];
}

// Each test spawns three CLI processes: generous on a loaded machine.
describe('rpcload serve: first steps', { timeout: 90_000 }, () => {
  it('prints a command that load-tests it as pasted, and accepts smoke.json clients with the demo secret', async () => {
    const serve = await startServeProcess(['--port', '0']);
    try {
      const [, command] = await serve.waitForStderr(/^rpcload serve: try {2}(npx rpcload run .*)$/m);
      expect(command).toBe(
        `npx rpcload run --target ${serve.url} --client client-1:demo-secret --method ping --rate 5 --duration 10s`,
      );
      const out = join(dir, 'pasted.json');
      const pasted = await runRpcload(pastedArgs(command!, out));
      expect(pasted.code).toBe(0);
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunResult).summary.outcomes).toEqual({ success: 5 });

      const smokeOut = join(dir, 'smoke.json');
      const smoke = await runRpcload(
        ['run', 'profiles/smoke.json', '--target', serve.url, '--duration', '1s', '--ui', 'none', '--out', smokeOut],
        {
          env: { SMOKE_SECRET: 'demo-secret' },
        },
      );
      expect(smoke.stderr).not.toMatch(/invalid_client/);
      const smokeResult = JSON.parse(readFileSync(smokeOut, 'utf8')) as RunResult;
      expect(smokeResult.summary.outcomes.success).toBeGreaterThan(0);
      expect(Object.keys(smokeResult.byClient).sort()).toEqual(['smoke-1', 'smoke-2', 'smoke-3']);
    } finally {
      await serve.stop();
    }
  });

  it('--tls writes its certificate to a .pem file that run --ca trusts, and removes it on exit', async () => {
    const serve = await startServeProcess(['--port', '0', '--tls']);
    let caFile = '';
    try {
      caFile = (
        await serve.waitForStderr(/^rpcload serve: certificate written to (\S+\.pem) \(trust it with --ca \S+\)$/m)
      )[1]!;
      expect(readFileSync(caFile, 'utf8')).toMatch(/^-----BEGIN CERTIFICATE-----/);
      const [, command] = await serve.waitForStderr(/^rpcload serve: try {2}(npx rpcload run .*)$/m);
      expect(command).toContain(`--ca ${caFile}`);
      const out = join(dir, 'tls.json');
      const pasted = await runRpcload(pastedArgs(command!, out));
      expect(pasted.stderr).toBe('');
      expect((JSON.parse(readFileSync(out, 'utf8')) as RunResult).summary.outcomes).toEqual({ success: 5 });
    } finally {
      expect((await serve.stop()).code).toBe(0);
    }
    expect(existsSync(caFile)).toBe(false);
  });
});

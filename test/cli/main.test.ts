import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOOL } from '../../src/version.ts';
import { runRpcload, runRpcloadListingBuiltins } from '../support/cli.ts';
import { useTempDir } from '../support/temp-dir.ts';

describe('rpcload CLI basics', () => {
  it('prints help listing every command, exit 0', async () => {
    const result = await runRpcload(['--help']);
    expect(result.code).toBe(0);
    for (const command of ['run', 'verify', 'compare', 'report', 'merge', 'serve', 'profile']) {
      expect(result.stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
    }
  });

  it('prints the package version, exit 0', async () => {
    const result = await runRpcload(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(TOOL.version);
  });

  it.each([
    // an unknown command gets a suggestion
    [['serv'], /unknown command 'serv'[\s\S]*Did you mean serve\?/],
    // an unknown flag is named
    [['serve', '--nope'], /unknown option '--nope'/],
  ])('rejects bad usage %j with exit 2 and no stack trace', async (args, message) => {
    const result = await runRpcload(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  describe('quick commands load no node:crypto (~8 ms of every start)', () => {
    const dir = useTempDir('rpcload-quick-builtins-');
    // A profile against a target of its own, with its secret given: nothing to generate or sign.
    const profilePath = join(dir, 'own-target.json');
    writeFileSync(
      profilePath,
      JSON.stringify({
        name: 'own-target',
        target: 'http://127.0.0.1:9',
        clients: { pattern: 'app-{n}', count: 4, secret: 'given-secret' },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        phases: [{ duration: '10s', concurrency: 8 }],
      }),
    );

    it.each([[['--version']], [['--help']], [['profile', 'validate', profilePath]]])('%j', async (args) => {
      const { builtins, ...result } = await runRpcloadListingBuiltins(args);
      expect(result.code, result.stderr).toBe(0);
      expect(builtins).toContain('fs'); // the list is the one the command made
      expect(builtins.filter((name) => /crypto/.test(name))).toEqual([]);
    });
  });

  /** `rpcload --version` with a preloaded module that prints the stack of the CLI's first write. */
  async function versionStack(env: NodeJS.ProcessEnv): Promise<string> {
    // The version is written by commander (its frames name the bundle: packages are not mapped) inside runCli.
    const preload = join(useTempDir('rpcload-stack-'), 'print-stack.mjs');
    writeFileSync(
      preload,
      `const write = process.stdout.write.bind(process.stdout);
      process.stdout.write = (chunk, ...rest) => {
        process.stdout.write = write;
        process.stderr.write(new Error('here').stack + '\\n');
        return write(chunk, ...rest);
      };`,
    );
    const result = await runRpcload(['--version'], {
      env: { NODE_OPTIONS: `--import=${pathToFileURL(preload).href}`, ...env },
    });
    expect(result.stdout.trim()).toBe(TOOL.version);
    return result.stderr;
  }

  it("with RPCLOAD_DEBUG, names src/ files and lines in stack traces of rpcload's own code, not the bundle in dist/", async () => {
    const stack = await versionStack({ RPCLOAD_DEBUG: '1' });
    expect(stack).toMatch(/\n\s+at runCli \(\S+\/src\/cli\/program\.ts:\d+:\d+\)/);
    expect(stack).toMatch(/\n\s+at \S+ \(\S+\/src\/cli\/main\.ts:\d+:\d+\)/);
    // commander's own frames are unmapped (so the maps stay small), never put on a src/ line.
    expect(stack).toMatch(/\n\s+at \S*parseAsync \(\S+\/dist\/chunk-\w+\.js:\d+:\d+\)/);
  });

  it('without RPCLOAD_DEBUG, leaves source maps off (Node would read a map per file loaded at every start-up)', async () => {
    const stack = await versionStack({ RPCLOAD_DEBUG: '' });
    expect(stack).toMatch(/\n\s+at runCli \(\S+\/dist\/rpcload\.js:\d+:\d+\)/);
    expect(stack).not.toMatch(/\/src\/cli\/\S+\.ts:\d+/);
  });
});

/** `--http-client` (run, capacity): the clients by their names, and `fast`, rpcload's former name. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { httpClientName } from '../../src/cli/parsers.ts';
import { runRpcload } from '../support/cli.ts';

describe('--http-client', () => {
  it.each([
    ['rpcload', 'rpcload'],
    ['fast', 'rpcload'],
    ['undici', 'undici'],
  ])('%s → %s', (flag, client) => {
    expect(httpClientName(flag)).toBe(client);
  });

  it('refuses any other name, saying which are known', () => {
    expect(() => httpClientName('curl')).toThrow(
      new InvalidArgumentError(`expected one of rpcload, undici (or fast, rpcload's former name), found "curl"`),
    );
  });
});

describe.concurrent.each(['run', 'capacity'])('rpcload %s --help', (command) => {
  it('names what each client is, and fast as rpcload’s former name', async ({ expect }) => {
    const help = await runRpcload([command, '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toContain("--http-client <name> the load's HTTP client: rpcload (rpcload's own: its HTTP/1.1 client,");
    expect(text).toContain("Node's http2 sessions on HTTP/2; fast is its former name) or undici");
  });
});

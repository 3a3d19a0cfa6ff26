/** `--http-client` (run, capacity): the clients by their names, and `fast`, rpcload's former name. */
import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { httpClientName } from '../../src/cli/parsers.ts';

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

/** The HTTP client of a merge of shards (mergedHttpClient in merge-runs.ts), as a table. */
import { describe, expect, it } from 'vitest';
import type { RunInfo } from '../../src/contract/result-schema.ts';
import { mergedHttpClient } from '../../src/results/merge/merge-runs.ts';

type Client = RunInfo['httpClient'];

describe("a merge's httpClient", () => {
  it.each<[Client[], Client]>([
    [['rpcload', 'rpcload'], 'rpcload'],
    [['rpcload', 'undici'], 'mixed'],
    [['fast', 'rpcload'], 'rpcload'], // a file of an earlier version: the same client by its former name
    [['fast', 'fast'], 'rpcload'],
    [['fast', 'undici'], 'mixed'],
    [['mixed', 'rpcload'], 'mixed'],
    [[undefined, 'undici'], 'undici'],
    [[undefined, undefined], undefined],
  ])('%j → %s', (clients, merged) => {
    expect(mergedHttpClient(clients.map((httpClient) => (httpClient === undefined ? {} : { httpClient }))).httpClient).toBe(merged);
  });
});

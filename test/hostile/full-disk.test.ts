/**
 * The disk fills up during a run, a capacity search, a verify or a report (a real one: a small
 * tmpfs, filled mid-run). A failing `--out-samples` write is warned about once and the run goes
 * on; a failed checkpoint never ends a run or a search; a result file that cannot be written at
 * the end goes to the temp directory, the command exits non-zero, and the stale `running`
 * checkpoint at `--out` is removed so the next CI step cannot take it for this result — the same
 * for `run`, `capacity` and `verify`, which share one session frame; a report is written
 * atomically, so a full disk never leaves a truncated page behind.
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LiveSnapshot } from '../../src/contract/live-snapshot.ts';
import type { RunResult } from '../../src/contract/result-schema.ts';
import { readResultFile } from '../../src/result-file/read-result.ts';
import { startSamplesWriter } from '../../src/session/samples-writer.ts';
import { RPCLOAD_BIN } from '../support/cli.ts';
import type { TestServer } from '../support/http-server.ts';
import type { RemoteServerHandle } from '../../src/server/options.ts';
import { startServerInWorker } from '../../src/server/worker.ts';
import { makeResult } from '../support/result-fixtures.ts';
import { answerSuccess, startHostileApi } from '../support/stalling-api.ts';
import { runWithTinyFilesystem, tinyFilesystemMissing } from '../support/tiny-filesystem.ts';

let dir: string;
let server: TestServer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'rpcload-full-disk-'));
  server = await startHostileApi(answerSuccess);
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

const noNamespace = tinyFilesystemMissing();
if (noNamespace !== null) process.stderr.write(`skipped: ${noNamespace}\n`);

/** The names the script listed with `ls "$MNT" | sed "s/^/file: /"`. */
const listed = (stdout: string): string[] =>
  stdout
    .split('\n')
    .flatMap((line) => (line.startsWith('file: ') ? [line.slice('file: '.length)] : []))
    .sort();

/** Fill the tmpfs at $MNT to the last byte. */
const FILL = 'dd if=/dev/zero of="$MNT/fill" bs=4k 2>/dev/null; true';

describe('a full disk during a run', () => {
  let profile: string;
  beforeAll(async () => {
    profile = join(dir, 'profile.json');
    await writeFile(
      profile,
      JSON.stringify({
        name: 'full-disk',
        target: server.url,
        clients: { list: [{ id: 'c1', secret: 'full-disk-secret' }] },
        scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }],
        phases: [{ name: 'p', duration: '3s', rate: 20 }],
        checkpointEvery: '200ms',
      }),
    );
  });
  const run = (args: string): string =>
    `node ${JSON.stringify(RPCLOAD_BIN)} run ${JSON.stringify(profile)} --ui none ${args}`;

  it.skipIf(noNamespace !== null)(
    'a samples file that cannot be written any more stops with one warning; the run completes and exits 0',
    async () => {
      const mnt = join(dir, 'samples-disk');
      mkdirSync(mnt);
      const out = join(dir, 'samples-run.json');
      // The disk holding the samples file is full from the start: its first line (after the first second) fails.
      const script = [
        FILL,
        `${run(`--out ${JSON.stringify(out)} --out-samples "$MNT/samples.jsonl"`)}; echo "EXIT=$?"`,
      ].join('\n');
      const cli = await runWithTinyFilesystem(mnt, 64, script);
      expect(cli.stdout, cli.stderr).toMatch(/^EXIT=0$/m);
      expect(cli.stderr).not.toMatch(/internal error|\n\s+at /);
      const result = await readResultFile(out);
      expect(result.run.status).toBe('completed');
      expect(result.summary.requests).toBe(60);
      const warnings = result.warnings.filter((w) => w.startsWith('--out-samples'));
      expect(warnings).toEqual([
        expect.stringMatching(/stopped writing samples at second 0 \(ENOSPC\); the result file has every second$/),
      ]);
      expect(cli.stdout).toContain('! --out-samples'); // in the summary's warnings too
    },
    60_000,
  );

  it.skipIf(noNamespace !== null)(
    'a result file that cannot be written at the end goes to the temp directory, exit 1, and no stale checkpoint is left at --out',
    async () => {
      const mnt = join(dir, 'result-disk');
      mkdirSync(mnt);
      // Once a checkpoint (status running) is on disk, the disk fills up.
      const script = [
        `${run('--out "$MNT/run.json"')} &`,
        'pid=$!',
        'until grep -q \'"status": "running"\' "$MNT/run.json" 2>/dev/null; do sleep 0.02; done',
        FILL,
        'wait $pid; echo "EXIT=$?"',
        'ls "$MNT" | sed "s/^/file: /"',
      ].join('\n');
      const cli = await runWithTinyFilesystem(mnt, 256, script);
      expect(cli.stdout, cli.stderr).toMatch(/^EXIT=1$/m);
      expect(cli.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(listed(cli.stdout)).toEqual(['fill']); // the stale checkpoint is gone
      const fallback = /wrote it to (\S+) instead \(and removed the stale file at .*run\.json\)/.exec(cli.stderr)?.[1];
      expect(fallback, cli.stderr).toBeDefined();
      try {
        const result = await readResultFile(fallback!);
        expect(result.run.status).toBe('completed');
        expect(result.summary.requests).toBe(60);
      } finally {
        await rm(fallback!, { force: true });
      }
    },
    60_000,
  );

  it('a samples file whose writes fail (/dev/full) never throws from its timer: it stops and says why once', async () => {
    const timeline = [0, 1, 2].map((t) => ({ t, requests: 5, success: 5, rateLimited: 0, errors: 0, p50: 1, p99: 2 }));
    const source = {
      snapshot: () => ({ timeline, elapsedMs: 3500 }) as unknown as LiveSnapshot,
      originEpochMs: () => Date.now(),
      started: () => true,
    };
    // Opened directly: the CLI refuses /dev/full up front, a disk that fills later fails the same way.
    const writer = startSamplesWriter('/dev/full', source);
    await new Promise((resolve) => setTimeout(resolve, 600)); // two polls: each would have thrown
    expect(writer.problem()).toMatch(/^--out-samples \/dev\/full: stopped writing samples at second 0 \(ENOSPC\)/);
    expect(() => writer.finish(timeline)).not.toThrow();
  });
});

/** The fallback file a command named on stderr (`wrote it to … instead`), read and removed. */
async function fallbackOf(stderr: string, stale: string): Promise<RunResult> {
  const fallback = new RegExp(`wrote it to (\\S+) instead \\(and removed the stale file at .*${stale}\\)`).exec(
    stderr,
  )?.[1];
  expect(fallback, stderr).toBeDefined();
  try {
    return await readResultFile(fallback!);
  } finally {
    await rm(fallback!, { force: true });
  }
}

describe('a full disk during a capacity search', () => {
  it.skipIf(noNamespace !== null)(
    'a failed checkpoint does not end the search; its result goes to the temp directory, exit 1, no stale checkpoint left',
    async () => {
      const mnt = join(dir, 'capacity-disk');
      mkdirSync(mnt);
      const profile = join(dir, 'capacity.json');
      // Four clients of 10/s against the embedded server: 10/s, 20/s, 36/s (the quota bound), then the confirmation.
      await writeFile(
        profile,
        JSON.stringify({
          name: 'full-disk-capacity',
          server: { capacity: { rate: 200 } },
          clients: { count: 4 },
          scenarios: [{ steps: [{ method: 'ping' }] }],
          phases: [{ duration: '1s', rate: 1 }],
          thresholds: ['p99 < 1s'],
          capacity: { start: 10, warmUp: '0s', hold: '1s', confirm: '1s', maxLag: '1s' },
        }),
      );
      // Once the first step's checkpoint (status running) is on disk, the disk fills up.
      const script = [
        `node ${JSON.stringify(RPCLOAD_BIN)} capacity ${JSON.stringify(profile)} --ui none --out "$MNT/capacity.json" &`,
        'pid=$!',
        'until grep -q \'"status": "running"\' "$MNT/capacity.json" 2>/dev/null; do sleep 0.02; done',
        FILL,
        'wait $pid; echo "EXIT=$?"',
        'ls "$MNT" | sed "s/^/file: /"',
      ].join('\n');
      const cli = await runWithTinyFilesystem(mnt, 1024, script);
      expect(cli.stdout, cli.stderr).toMatch(/^EXIT=1$/m);
      expect(cli.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(listed(cli.stdout)).toEqual(['fill']); // the stale checkpoint is gone
      const result = await fallbackOf(cli.stderr, 'capacity\\.json');
      expect(result.run).toMatchObject({ kind: 'capacity', status: 'completed' });
      // Every step ran, the confirmation too: the failed checkpoints did not stop the search. Alone,
      // the search is 10/s, 20/s, 36/s and the confirmation; a starved machine may fail a step and
      // bisect once more (CI saw five steps), so the count is a floor and the answer a ceiling.
      const kinds = result.capacity!.steps.map((s) => s.kind);
      expect(kinds.filter((kind) => kind === 'search').length).toBeGreaterThanOrEqual(3);
      expect(kinds).toContain('confirm');
      expect(result.capacity!.ratePerS).toBeGreaterThan(0);
      expect(result.capacity!.ratePerS).toBeLessThanOrEqual(36);
      expect(result.warnings).toContainEqual(
        expect.stringMatching(/^a checkpoint of the result file could not be written: .*ENOSPC/),
      );
    },
    60_000,
  );
});

describe('a full disk during a verify', () => {
  let reference: RemoteServerHandle;
  beforeAll(async () => {
    reference = await startServerInWorker({ limit: 10, windowMs: 1000 });
  });
  afterAll(() => reference.close());

  it.skipIf(noNamespace !== null)(
    'its result goes to the temp directory, exit 1, and the stale file at --out is removed',
    async () => {
      const mnt = join(dir, 'verify-disk');
      mkdirSync(mnt);
      const verify = [
        `node ${JSON.stringify(RPCLOAD_BIN)} verify --target ${reference.url} --client client-1:demo-secret --client client-2:demo-secret`,
        '--method ping --limit 10 --window 1s --only envelope,auth.missing_token --ui none --out "$MNT/verify.json"',
      ].join(' ');
      // An older result at --out, then a full disk: the verify cannot write over it.
      const script = [
        'echo \'{"stale": true}\' > "$MNT/verify.json"',
        FILL,
        `${verify}; echo "EXIT=$?"`,
        'ls "$MNT" | sed "s/^/file: /"',
      ].join('\n');
      const cli = await runWithTinyFilesystem(mnt, 64, script);
      expect(cli.stdout, cli.stderr).toMatch(/^EXIT=1$/m);
      expect(cli.stderr).not.toMatch(/internal error|\n\s+at /);
      expect(listed(cli.stdout)).toEqual(['fill']);
      const result = await fallbackOf(cli.stderr, 'verify\\.json');
      expect(result.run).toMatchObject({ kind: 'verify', status: 'completed' });
      expect(result.checks.map((c) => [c.id, c.verdict])).toEqual([
        ['envelope', 'pass'],
        ['auth.missing_token', 'pass'],
      ]);
    },
    60_000,
  );
});

describe('a full disk during a report', () => {
  it.skipIf(noNamespace !== null)(
    'leaves the previous report whole, not truncated, and no temporary file',
    async () => {
      const mnt = join(dir, 'report-disk');
      mkdirSync(mnt);
      const resultPath = join(dir, 'result.json');
      await writeFile(resultPath, JSON.stringify(makeResult({ seed: 3, rps: 40, durationS: 30 })));
      // A first report fits; then the disk fills, and a second report of the same file cannot be written.
      const script = [
        `node ${JSON.stringify(RPCLOAD_BIN)} report ${JSON.stringify(resultPath)} --out "$MNT/report.html" >/dev/null`,
        'cp "$MNT/report.html" "$MNT/first.html"',
        FILL,
        `node ${JSON.stringify(RPCLOAD_BIN)} report ${JSON.stringify(resultPath)} --out "$MNT/report.html"; echo "EXIT=$?"`,
        'cmp -s "$MNT/report.html" "$MNT/first.html" && echo SAME',
        'ls -a "$MNT" | sed "s/^/file: /"',
      ].join('\n');
      const cli = await runWithTinyFilesystem(mnt, 2048, script);
      expect(cli.stdout, cli.stderr).toMatch(/^EXIT=2$/m);
      expect(cli.stderr).toMatch(/report\.html: cannot write the report \(.*ENOSPC/);
      expect(cli.stdout).toMatch(/^SAME$/m);
      expect(cli.stdout).not.toMatch(/^file: .*\.tmp$/m);
    },
    60_000,
  );
});

/**
 * Recordings that made a replay lose calls, hang or mislead, each replayed against a real server
 * on 127.0.0.1: long lines at the window's start, a file changed between the scan and the replay,
 * a window no run could last, calls recorded out of time order, a path that is no recording file,
 * a UTF-8 byte order mark.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareReplay } from '../../src/profile/replay-plan.ts';
import type { Plan } from '../../src/profile/plan.ts';
import { runRpcload } from '../support/cli.ts';
import { startLoggingApi } from '../support/logging-api.ts';
import { runPlan, testPlan } from '../support/load-run.ts';
import { replayByCli, seqsOf, writeRecording } from '../support/replay-runs.ts';
import { useTempDir } from '../support/temp-dir.ts';

// Each CLI run is a process of its own: allow for a busy machine (the kill after 45 s bounds a hang).
const dir = useTempDir('rpcload-replay-recordings-');
let api: Awaited<ReturnType<typeof startLoggingApi>>;
beforeAll(async () => (api = await startLoggingApi()));
afterAll(() => api.close());

const pad = (bytes: number): string => 'x'.repeat(bytes);
const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/** The plan of a replay of `file` by the test clients (client-1, client-2), scanned now. */
function scannedPlan(file: string): Promise<Plan> {
  const plan = testPlan(
    { scenarios: [{ name: 'ping', steps: [{ method: 'ping' }] }], phases: [{ duration: '1s', rate: 1 }] },
    api.url,
  );
  const settings = {
    file,
    speed: 1,
    loop: false,
    from: null,
    to: null,
    maxCalls: null,
    mapClients: false,
    durationMs: null,
    host: null,
  };
  return prepareReplay(plan, 0, settings);
}

describe('a replay sends every call of its window', { timeout: 120_000 }, () => {
  it('sends the first call of the window whatever the length of its line (200 KB lines; --from 1s with a 150 KB first call)', async () => {
    const long = writeRecording(
      dir,
      'long.jsonl',
      [0, 10].map((t, seq) => ({ t, client: 'c1', method: 'ping', args: { seq, pad: pad(200_000) } })),
    );
    const whole = await replayByCli(api, dir, ['--replay', long], ['c1']);
    expect(whole.code, whole.stderr).toBe(0);
    expect(seqsOf(whole.arrivals)).toEqual([0, 1]);
    expect(whole.result!.replay).toMatchObject({ calls: 2, callsInWindow: 2, sent: 2, skipped: {} });

    // Ten calls before the window (10 KB each), then its first call of 150 KB and nine small ones.
    const calls = range(0, 20).map((seq) => ({
      t: seq < 10 ? seq * 50 : 1000 + (seq - 10) * 10,
      client: 'c1',
      method: 'ping',
      args: { seq, pad: pad(seq < 10 ? 10_000 : seq === 10 ? 150_000 : 10) },
    }));
    const late = await replayByCli(
      api,
      dir,
      ['--replay', writeRecording(dir, 'late.jsonl', calls), '--from', '1s'],
      ['c1'],
    );
    expect(late.code, late.stderr).toBe(0);
    expect(seqsOf(late.arrivals)).toEqual(range(10, 20));
    expect(late.result!.replay).toMatchObject({ callsInWindow: 10, sent: 10 });
  });
});

describe('a recording that changes during the run', () => {
  const calls = (count: number, first = 0) =>
    range(first, first + count).map((seq) => ({
      t: seq * 2,
      client: `client-${(seq % 2) + 1}`,
      method: 'ping',
      args: { seq },
    }));

  it('plays exactly the bytes scanned: calls appended since are not sent, and the run says the file grew', async () => {
    const file = writeRecording(dir, 'grown.jsonl', calls(40));
    const plan = await scannedPlan(file);
    // Calls inside the scanned window's span (t 1, 3, 5 …): a reader of the whole file would send them all.
    const appended = calls(30, 40).map((call, i) => ({ ...call, t: 1 + i * 2 }));
    appendFileSync(file, appended.map((call) => `${JSON.stringify(call)}\n`).join(''));
    api.arrivals.length = 0;
    const { result } = await runPlan(plan, api.url);
    expect(seqsOf(api.arrivals)).toEqual(range(0, 40));
    expect(result.summary.requests).toBe(40);
    expect(result.warnings).toContainEqual(
      expect.stringMatching(
        /^grown\.jsonl changed during the run: it grew \(.*\): the replay read only the bytes scanned/,
      ),
    );
  });

  it('counts the calls of a file cut since the scan as not sent, with the reason, and says so', async () => {
    const file = writeRecording(dir, 'cut.jsonl', calls(60));
    const plan = await scannedPlan(file);
    // Cut in the middle of the 26th line: 25 calls are left whole.
    const lines = readFileSync(file, 'utf8').split('\n');
    truncateSync(file, Buffer.byteLength(lines.slice(0, 25).join('\n')) + 1 + 10);
    api.arrivals.length = 0;
    const { result } = await runPlan(plan, api.url);
    expect(seqsOf(api.arrivals)).toEqual(range(0, 25));
    expect(result.summary.skipped).toEqual({ 'recording changed': 35 });
    expect(result.warnings).toContainEqual(
      expect.stringMatching(
        /^cut\.jsonl changed during the run and the replay stopped reading it \(.*\): 35 calls of the window not sent/,
      ),
    );
  });
});

describe('a replay window no run could last', { timeout: 120_000 }, () => {
  const oneLine = (stderr: string) => expect(stderr.trim().split('\n')).toHaveLength(1);

  it('is refused before the run, naming its length and the bound: t in microseconds, t = 1e300, --speed 1e-9', async () => {
    // 31 days in ms: t written in µs by mistake.
    const micros = writeRecording(
      dir,
      'micros.jsonl',
      [0, 2_678_400_000].map((t, seq) => ({ t, client: 'c1', method: 'ping', args: { seq } })),
    );
    const huge = writeRecording(
      dir,
      'huge.jsonl',
      [0, 1e300].map((t, seq) => ({ t, client: 'c1', method: 'ping', args: { seq } })),
    );
    const short = writeRecording(
      dir,
      'short.jsonl',
      [0, 10].map((t, seq) => ({ t, client: 'c1', method: 'ping', args: { seq } })),
    );
    const runs = await Promise.all([
      replayByCli(api, dir, ['--replay', micros], ['c1'], { timeoutMs: 45_000 }),
      replayByCli(api, dir, ['--replay', huge], ['c1'], { timeoutMs: 45_000 }),
      replayByCli(api, dir, ['--replay', short, '--speed', '1e-9'], ['c1'], { timeoutMs: 45_000 }),
    ]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      oneLine(run.stderr);
      expect(run.stderr).toContain('longer than a run may last, 7 days (168h)');
      expect(run.result).toBeNull();
    }
    expect(runs[0].stderr).toContain('micros.jsonl: the replay would last 31 days');
    expect(runs[1].stderr).toMatch(/huge\.jsonl: the replay would last [\d.]+e\+\d+ days/);
    expect(runs[2].stderr).toContain(
      'short.jsonl: the replay would last 116 days (10ms of the recording at speed 1e-9)',
    );
  });

  it('ends at --duration', async () => {
    const huge = writeRecording(
      dir,
      'huge-ended.jsonl',
      [0, 1e300].map((t, seq) => ({ t, client: 'c1', method: 'ping', args: { seq } })),
    );
    const run = await replayByCli(api, dir, ['--replay', huge, '--duration', '1s'], ['c1'], { timeoutMs: 45_000 });
    expect(run.code, run.stderr).toBe(0);
    expect(seqsOf(run.arrivals)).toEqual([0]);
    expect(run.result!.run.status).toBe('completed');
    expect(run.result!.summary.durationS).toBeLessThan(5);
  });
});

describe('calls recorded out of time order', { timeout: 120_000 }, () => {
  it('are counted apart and said on screen; each is due with the call before it, so its wait is neither latency nor schedule lag', async () => {
    // seq 2 was recorded 1 s before the call above it.
    const file = writeRecording(dir, 'disorder.jsonl', [
      { t: 0, client: 'c1', method: 'ping', args: { seq: 0 } },
      { t: 1200, client: 'c1', method: 'ping', args: { seq: 1 } },
      { t: 200, client: 'c1', method: 'late.call', args: { seq: 2 } },
      { t: 1300, client: 'c1', method: 'ping', args: { seq: 3 } },
    ]);
    const { code, stdout, result, arrivals } = await replayByCli(api, dir, ['--replay', file], ['c1']);
    expect(code).toBe(0);
    expect(seqsOf(arrivals)).toEqual([0, 1, 2, 3]);
    // Well under the second of disorder, even on a machine busy enough to delay a call by hundreds of ms.
    expect(result!.summary.scheduleLagMs!.max).toBeLessThan(600);
    expect(result!.byMethod['late.call']!.latencyMs.max).toBeLessThan(600);
    expect(result!.replay!.outOfOrder).toEqual({ calls: 1, maxMs: 1000 });
    expect(stdout).toMatch(
      /^replay +disorder\.jsonl: 4 sent of 4 calls in the window; 1 out of time order \(up to 1,?000(\.0)? ms early/m,
    );
  });
});

describe('a path that is no recording file', { timeout: 120_000 }, () => {
  it('is refused in one line saying what it is: a directory, a FIFO, a device (never waiting on them)', async () => {
    const directory = join(dir, 'a-directory.jsonl');
    mkdirSync(directory);
    const fifo = join(dir, 'a-fifo.jsonl');
    execFileSync('mkfifo', [fifo]);
    const runs = await Promise.all(
      [directory, fifo, '/dev/zero', join(dir, 'missing.jsonl')].map((path) =>
        replayByCli(api, dir, ['--replay', path], ['c1'], { timeoutMs: 45_000 }),
      ),
    );
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(runs[0]!.stderr).toContain(`--replay: ${directory}: a directory, not a recording file`);
    expect(runs[1]!.stderr).toContain(`--replay: ${fifo}: a FIFO (named pipe), not a regular file`);
    expect(runs[2]!.stderr).toContain('--replay: /dev/zero: a device, not a recording file');
    expect(runs[3]!.stderr).toContain('missing.jsonl: no such file');
  });
});

describe('a UTF-8 byte order mark', { timeout: 120_000 }, () => {
  it('is accepted at the start of a JSONL recording', async () => {
    const calls = range(0, 3).map((seq) => ({ t: seq * 5, client: 'c1', method: 'ping', args: { seq } }));
    const file = writeRecording(dir, 'bom.jsonl', calls, '\uFEFF');
    const run = await replayByCli(api, dir, ['--replay', file], ['c1']);
    expect(run.code, run.stderr).toBe(0);
    expect(seqsOf(run.arrivals)).toEqual([0, 1, 2]);
  });

  it('is accepted at the start of a JSONL data file (in sequential and in random order)', async () => {
    writeFileSync(
      join(dir, 'users.jsonl'),
      `\uFEFF${range(1, 4)
        .map((id) => JSON.stringify({ id }))
        .join('\n')}\n`,
    );
    const profile = join(dir, 'data.json');
    writeFileSync(
      profile,
      JSON.stringify({
        target: api.url,
        clients: { list: [{ id: 'c1', secret: 's' }] },
        data: {
          inOrder: { file: 'users.jsonl', order: 'sequential' },
          picked: { file: 'users.jsonl', order: 'random' },
        },
        scenarios: [
          { name: 'use', steps: [{ method: 'rows.use', args: { a: '{{data.inOrder.id}}', b: '{{data.picked.id}}' } }] },
        ],
        phases: [{ duration: '500ms', rate: 20 }],
      }),
    );
    api.arrivals.length = 0;
    const run = await runRpcload(['run', profile, '--ui', 'none', '--out', join(dir, 'data-result.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(api.arrivals.length).toBeGreaterThan(0);
    for (const { args } of api.arrivals) {
      expect(['1', '2', '3']).toContain(String(args.a));
      expect(['1', '2', '3']).toContain(String(args.b));
    }
  });
});

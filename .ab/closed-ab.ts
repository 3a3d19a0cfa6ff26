// Throwaway A/B (not committed): alternate two rpcload builds' 5-s closed runs against one nginx worker.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startNginx } from '../test/bench/nginx-target.ts';
import { writeBenchProfile } from '../test/bench/bench-profile.ts';

const [binA, binB, roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 6);
const target = (await startNginx(() => undefined, false, 1))!;
const dir = mkdtempSync(join(tmpdir(), 'ab-'));
const profile = writeBenchProfile(dir, 'ab', target.url, { load: { concurrency: 64 }, durationS: 5, clients: 1, connections: 64, client: null });
const rows: Record<string, number[]> = { A: [], B: [] };
for (let r = 0; r < rounds; r++) {
  for (const [name, bin] of (r % 2 === 0 ? [['A', binA], ['B', binB]] : [['B', binB], ['A', binA]]) as [string, string][]) {
    const out = join(dir, `${name}-${r}.json`);
    const res = spawnSync('/usr/bin/time', ['-f', '%U %S', process.execPath, bin, 'run', profile, '--ui', 'none', '--out', out], { encoding: 'utf8' });
    const [u, s] = res.stderr.trim().split('\n').pop()!.split(' ').map(Number);
    const result = JSON.parse(readFileSync(out, 'utf8'));
    const load = result.byPhase?.load;
    const requests = load?.requests ?? load?.stats?.requests ?? result.summary.requests;
    const cpuPer1000 = ((u! + s!) / requests) * 1000;
    rows[name]!.push(cpuPer1000);
    console.log(name, r, 'cpu', (u! + s!).toFixed(2), 'req', requests, 'cpu/1000', cpuPer1000.toFixed(4));
  }
}
const med = (a: number[]) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)]!;
console.log('median A', med(rows.A!).toFixed(4), 'B', med(rows.B!).toFixed(4), 'B/A', (med(rows.B!) / med(rows.A!)).toFixed(3));
await target.close();

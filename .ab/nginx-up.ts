import { writeFileSync } from 'node:fs';
import { startNginx } from '../test/bench/nginx-target.ts';
import { writeBenchProfile } from '../test/bench/bench-profile.ts';
const target = (await startNginx(() => undefined, false, 1))!;
const p = writeBenchProfile('/tmp/probe', 'closed5', target.url, { load: { concurrency: 64 }, durationS: 5, clients: 1, connections: 64, client: null });
writeFileSync('/tmp/probe/nginx.txt', `${target.url} ${target.pid} ${p}\n`);
console.log(target.url, target.pid, p);

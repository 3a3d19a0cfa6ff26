import { writeFileSync } from 'node:fs';
import { startNginx } from '../test/bench/nginx-target.ts';
const target = (await startNginx(() => undefined, false, 1))!;
writeFileSync('/tmp/probe/nginx-url.txt', target.url);
process.on('SIGTERM', async () => { await target.close(); process.exit(0); });
setInterval(() => undefined, 1 << 30);

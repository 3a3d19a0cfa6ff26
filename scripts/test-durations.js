/* global process, console, URL */
// Writes test/durations.json from a vitest JSON report of the load pass: each test file's duration
// in seconds (the longest of its runs, as the undici project runs some files twice). vitest.config.ts
// starts the longest files first with it where vitest has no record of its own (a fresh clone, CI),
// so that no long file starts near the end of the pass and runs there alone. Refresh it now and
// then; a stale or missing entry only changes the order.
//
//   RPCLOAD_TEST_PHASE=load npx vitest run --reporter=json --outputFile.json=/tmp/report.json
//   node scripts/test-durations.js /tmp/report.json
import { readFileSync, writeFileSync } from 'node:fs';

const [reportPath] = process.argv.slice(2);
if (reportPath === undefined) {
  console.error('usage: node scripts/test-durations.js REPORT.json (a vitest JSON report)');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
const durations = {};
for (const file of report.testResults) {
  // Relative to the checkout the report was made in (the last `/test/` of the path: the suite's own).
  const path = file.name.slice(file.name.lastIndexOf('/test/') + 1);
  const seconds = Math.round((file.endTime - file.startTime) / 100) / 10;
  if (seconds >= 1) durations[path] = Math.max(durations[path] ?? 0, seconds);
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
writeFileSync(new URL('../test/durations.json', import.meta.url), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files of 1 s or more`);

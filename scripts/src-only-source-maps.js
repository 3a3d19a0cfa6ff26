/**
 * Source maps of the CLI bundle made for what they are used for: stack traces of rpcload's own
 * code. Node parses a file's whole map the first time a stack trace passes through the file — and
 * Node itself reads `err.stack` when a stream is destroyed with an error, as undici's sockets are
 * at the end of every run — so esbuild's full maps (a mapping per token, the packages compiled in
 * included: 570 KB for undici's chunk) cost ~0.2 CPU-s of every run. Kept: one mapping where the
 * original file or line changes, so a frame still names its src/ file and line (its column is
 * where that line's code begins). Package code becomes unmapped — a one-field segment where a
 * stretch of it begins, so that none of its frames is attributed to the src/ line before it — and
 * its frames name the chunk, as without a map.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { decode, encode } from '@jridgewell/sourcemap-codec';

/** Rewrite the source map at `path`: src/ lines only. */
export async function keepOwnLinesOnly(path) {
  const map = JSON.parse(await readFile(path, 'utf8'));
  const own = map.sources.map((source) => !source.includes('node_modules/'));
  const index = [];
  let next = 0;
  for (const kept of own) index.push(kept ? next++ : -1);
  // Segments: [generated column, source, original line, original column, name?]; [column] = unmapped.
  let unmapped = false;
  let lastLine = '';
  const lines = decode(map.mappings).map((segments) => {
    const kept = [];
    for (const segment of segments) {
      if (segment.length === 1 || !own[segment[1]]) {
        if (!unmapped) kept.push([segment[0]]);
        unmapped = true;
        continue;
      }
      const line = `${segment[1]}:${segment[2]}`;
      if (!unmapped && line === lastLine) continue;
      kept.push([segment[0], index[segment[1]], ...segment.slice(2)]);
      unmapped = false;
      lastLine = line;
    }
    return kept;
  });
  map.sources = map.sources.filter((_, i) => own[i]);
  map.mappings = encode(lines);
  await writeFile(path, JSON.stringify(map));
}

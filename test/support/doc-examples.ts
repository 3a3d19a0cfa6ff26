/**
 * The example commands of the documentation, extracted from its ```sh blocks, so a test can run
 * each one as written (bounded: a short duration, a local target, a result file in a temp
 * directory) and the docs cannot drift from what the CLI accepts.
 */
import { readFileSync } from 'node:fs';

export interface DocCommand {
  /** `file:line` of the command's first line. */
  readonly where: string;
  /** The command as written, continuation lines joined, the trailing comment removed. */
  readonly text: string;
}

/** Every command line of the ```sh blocks of a markdown file (`\` continuations joined). */
export function shellExamples(path: string, label = path): DocCommand[] {
  const lines = readFileSync(path, 'utf8').split('\n');
  const commands: DocCommand[] = [];
  let inBlock = false;
  let pending: { start: number; text: string } | null = null;
  lines.forEach((line, index) => {
    if (/^```sh\s*$/.test(line)) return void (inBlock = true);
    if (inBlock && /^```\s*$/.test(line)) return void (inBlock = false);
    if (!inBlock) return;
    const text = stripComment(line).trimEnd();
    if (text.trim() === '') return;
    const joined =
      pending === null
        ? { start: index, text: text.trim() }
        : { start: pending.start, text: `${pending.text} ${text.trim()}` };
    if (joined.text.endsWith('\\')) pending = { start: joined.start, text: joined.text.slice(0, -1).trimEnd() };
    else {
      commands.push({ where: `${label}:${joined.start + 1}`, text: joined.text });
      pending = null;
    }
  });
  return commands;
}

/** A `# comment` outside quotes ends the line's command. */
function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote !== null) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) return line.slice(0, i);
  }
  return line;
}

/** The first ```json block after the line that contains `marker`. */
export function jsonExampleAfter(path: string, marker: string): string {
  return codeExampleAfter(path, marker, 'json');
}

/** The first fenced block in `language` (```js, ```json …) after the line that contains `marker`. */
export function codeExampleAfter(path: string, marker: string, language: string): string {
  const text = readFileSync(path, 'utf8');
  const at = text.indexOf(marker);
  const block = new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``).exec(text.slice(at));
  if (at === -1 || block === null) throw new Error(`${path}: no ${language} block after ${JSON.stringify(marker)}`);
  return block[1]!;
}

export interface Bounds {
  /** Replaces the documentation's example target (https://api.example.com). */
  readonly target: string;
  /** Result file of this command. */
  readonly out: string;
  /** verify: the local server's rate-limit window, so the suite takes seconds, not minutes. */
  readonly verifyWindow?: string;
  /** verify: the local server's requests per window (fewer requests for the same checks). */
  readonly verifyLimit?: number;
}

/**
 * The command made safe and short to run: the example target → a local server, every run at most
 * 1 s (stages shrunk, a duration added when none is given), the result file in a temp directory,
 * no live view. Returns null for commands that are not rpcload's (npm ci, npm test).
 */
export function boundedCommand(text: string, bounds: Bounds): string | null {
  let command = text
    .replaceAll('https://api.example.com', bounds.target)
    .replaceAll('SMOKE_SECRET=…', 'SMOKE_SECRET=$SECRET')
    .replace(/^npx rpcload /, 'rpcload ')
    .replace(/ npx rpcload /, ' rpcload ');
  const sub = /\brpcload (\w+)/.exec(command)?.[1];
  if (sub === undefined) return null;
  if (sub === 'run') {
    command = command.replace(/--duration \S+/, '--duration 1s').replace(/--stages \S+/, '--stages 500ms:20,500ms:0');
    if (!/--duration |--stages |-n |--requests /.test(command)) command += ' --duration 1s';
  }
  if (sub === 'capacity') {
    // The shortest real search: whole-second steps, no confirmation, stopping at 100/s (a replay: at 2× its recording).
    const replay = /--replay |replay/.test(command);
    command += ` --warm-up 1s --hold 1s --confirm 0 ${replay ? '--start 1 --max 2' : '--start 50 --max 100'}`;
  }
  if (sub === 'run' || sub === 'verify' || sub === 'capacity') {
    command = command.replace(/--out \S+/, '').replace(/--ui \S+/, '');
    command += ` --ui none --out ${bounds.out}`;
    if (sub === 'verify' && bounds.verifyWindow !== undefined) command += ` --window ${bounds.verifyWindow}`;
    if (sub === 'verify' && bounds.verifyLimit !== undefined) command += ` --limit ${bounds.verifyLimit}`;
  }
  return command;
}

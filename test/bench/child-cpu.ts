/**
 * CPU time of the processes this one has spawned and waited for, from /proc/self/stat (Linux
 * only): what the bench charges a tool it ran. Read before a spawn and after its exit, the growth
 * is that command's CPU alone, its threads and its own children included.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat times (USER_HZ); ask once, before any clock starts. */
export function clockTicksPerS(): number {
  const ticks = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim());
  return Number.isInteger(ticks) && ticks > 0 ? ticks : 100;
}

/** CPU seconds (user + system) of this process's waited-for children so far. */
export function childrenCpuS(ticksPerS: number): number {
  // Fields after the parenthesised command name start at field 3 (state); cutime and cstime are
  // fields 16 and 17.
  const fields = readFileSync('/proc/self/stat', 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[13]) + Number(fields[14])) / ticksPerS;
}

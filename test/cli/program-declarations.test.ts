/**
 * Which commands the CLI declares for a command line (src/cli/program.ts): the one it names, none
 * for `--version`, all for help and for a name it does not know. In process: commander's program
 * as the CLI builds it, not a spawned CLI (main.test.ts runs those, `--help` and a suggestion).
 */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, REGISTRATIONS } from '../../src/cli/program.ts';

const declared = (argv?: readonly string[]): string[] => buildProgram(argv).commands.map((command) => command.name());
const ALL = REGISTRATIONS.flatMap(([names]) => names);

describe('the commands the CLI declares', () => {
  it.each(REGISTRATIONS.map(([names, register]) => [names.join(', '), names, register] as const))(
    '%s: the registration declares exactly the names it is listed under',
    (_label, names, register) => {
      const program = new Command();
      register(program);
      expect(program.commands.map((command) => command.name())).toEqual(names);
    },
  );

  it('declares only the command the line names, with its subcommands', () => {
    expect(declared(['run', 'profile.json', '--rate', '5'])).toEqual(['run']);
    expect(declared(['teardown', 'p.json'])).toEqual(['setup', 'teardown']);
    const [profile] = buildProgram(['profile', 'validate', 'p.json']).commands;
    expect(profile?.commands.map((command) => command.name())).toEqual(['validate', 'schema']);
  });

  it('declares none for --version, and all for help, no command or an unknown one', () => {
    expect(declared(['--version'])).toEqual([]);
    expect(declared(['-V'])).toEqual([]);
    for (const argv of [['--help'], ['-h'], ['help', 'run'], [], ['serv'], undefined])
      expect(declared(argv), JSON.stringify(argv)).toEqual(ALL);
    expect(new Set(ALL).size).toBe(ALL.length);
  });
});

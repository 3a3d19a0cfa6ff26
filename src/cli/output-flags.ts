/**
 * The file flags of the commands that send load (run, verify, capacity), checked before anything
 * starts: each output is a file of its own — not another output, not the profile it reads — and
 * the JUnit file can be written (the sessions check their result and samples files themselves).
 */
import { assertResultPathWritable } from '../result-file/write-result.ts';
import { assertDistinctFiles } from '../util/output-files.ts';

export interface OutputFlags {
  readonly out?: string | undefined;
  readonly outSamples?: string | undefined;
  readonly junit?: string | undefined;
}

/** Refuse (exit 2, one line) outputs that are one file, an output that is the profile, or an unwritable JUnit path. */
export async function checkOutputFlags(flags: OutputFlags, profilePath: string | undefined): Promise<void> {
  await assertDistinctFiles(
    [
      { name: '--out', path: flags.out },
      { name: '--out-samples', path: flags.outSamples },
      { name: '--junit', path: flags.junit },
    ],
    [{ name: 'the profile', path: profilePath }],
  );
  if (flags.junit !== undefined) await assertResultPathWritable(flags.junit, '--junit', 'the JUnit file');
}

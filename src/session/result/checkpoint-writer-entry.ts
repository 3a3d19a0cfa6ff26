// The checkpoint writer's worker thread (see checkpoint-writer.ts): build, serialize, write.
import { parentPort } from 'node:worker_threads';
import { describeError } from '../../errors.ts';
import { buildRunResult } from './build-result.ts';
import { writeResultFile } from '../../result-file/write-result.ts';
import type { CheckpointMessage, CheckpointReply } from './checkpoint-writer.ts';

const port = parentPort!;
port.on('message', ({ id, path, input }: CheckpointMessage) => {
  writeResultFile(path, buildRunResult(input)).then(
    () => port.postMessage({ id, error: null } satisfies CheckpointReply),
    (err: unknown) => port.postMessage({ id, error: describeError(err) } satisfies CheckpointReply),
  );
});

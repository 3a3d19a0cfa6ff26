/**
 * While the dashboard owns the terminal, anything else written to stderr (the CLI's "stopping…"
 * notice, a warning) would land in the middle of the drawing and stay there until those cells
 * change. So stderr writes are held back: the dashboard shows their last lines in its log pane,
 * and release() writes them out, in order, once the normal screen is back. What is held is
 * capped (oldest dropped), so a chatty dependency cannot grow memory.
 */
export interface StderrCapture {
  /** Lines captured so far, oldest first (at most the last `maxLines`). */
  lines(): readonly string[];
  /** Put the real write back and replay what was held. Idempotent. */
  release(): void;
}

const MAX_HELD_CHARS = 64 * 1024;
/** An unfinished line is only ever shown, cut to a pane's width anyway. */
const MAX_LINE_CHARS = 1000;

type Write = NodeJS.WriteStream['write'];

export function captureStderr(stream: NodeJS.WriteStream = process.stderr, maxLines = 20): StderrCapture {
  // Put back exactly what was there: usually nothing of its own (the prototype's write).
  const ownWrite = Object.getOwnPropertyDescriptor(stream, 'write');
  const realWrite: Write = stream.write.bind(stream);
  let held: string[] = [];
  let heldChars = 0;
  let recent: string[] = [];
  let partial = '';
  const capture: Write = (chunk: unknown, encodingOrCallback?: unknown, callback?: unknown): boolean => {
    const encoding = typeof encodingOrCallback === 'string' ? (encodingOrCallback as BufferEncoding) : 'utf8';
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString(encoding);
    held.push(text);
    heldChars += text.length;
    while (heldChars > MAX_HELD_CHARS && held.length > 1) heldChars -= held.shift()!.length;
    const parts = (partial + text).split('\n');
    partial = (parts.pop() ?? '').slice(-MAX_LINE_CHARS);
    recent = [...recent, ...parts.filter((line) => line.trim() !== '')].slice(-maxLines);
    const done = typeof encodingOrCallback === 'function' ? encodingOrCallback : callback;
    if (typeof done === 'function') process.nextTick(() => (done as () => void)());
    return true;
  };
  stream.write = capture;
  let released = false;
  return {
    lines: () => (partial.trim() === '' ? recent : [...recent, partial].slice(-maxLines)),
    release: () => {
      if (released) return;
      released = true;
      if (ownWrite === undefined) delete (stream as { write?: Write }).write;
      else Object.defineProperty(stream, 'write', ownWrite);
      const text = held.join('');
      held = [];
      if (text !== '') realWrite(text);
    },
  };
}

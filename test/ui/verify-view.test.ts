import { describe, expect, it } from 'vitest';
import {
  applyProgress,
  checkDurationMs,
  countStates,
  emptyBoard,
  LOG_LIMIT,
  type CheckBoard,
} from '../../src/ui/checks/check-board.ts';
import { createPlainChecks, stateMark } from '../../src/ui/checks/check-lines.ts';
import { renderVerifyFrame, type VerifyFrameModel } from '../../src/ui/checks/verify-frame.ts';
import { frameToTags, frameToText, lineText } from '../../src/ui/text/styled.ts';
import type { CheckProgress } from '../../src/contract/live-view.ts';

const IDS = [
  'envelope',
  'auth.missing_token',
  'ratelimit.threshold',
  'ratelimit.retry_after_honoured',
  'payload.limit',
  'tls',
];
const HEADER = { target: 'http://127.0.0.1:41234', checkIds: IDS, resultPath: 'results/20250101T120000Z-verify.json' };
const rec = (id: string, state: CheckProgress['state'], detail: string, atMs: number): CheckProgress => ({
  id,
  state,
  detail,
  atMs,
});

/** A board after the given records, in order. */
function boardAfter(records: readonly CheckProgress[]): CheckBoard {
  return records.reduce((board, record) => applyProgress(board, record).board, emptyBoard(IDS));
}

const MIDWAY: readonly CheckProgress[] = [
  rec('envelope', 'running', 'on client-1', 100),
  rec('envelope', 'pass', '12 responses, all valid envelopes', 400),
  rec('ratelimit.threshold', 'running', 'on client-3', 500),
  rec('tls', 'skip', 'plain http target: nothing to check', 600),
  rec('payload.limit', 'running', '', 700),
  rec('payload.limit', 'fail', 'boundary at 50,000 bytes, expected 100,000 or 102,400', 3000),
];

const frameModel = (over: Partial<VerifyFrameModel> = {}): VerifyFrameModel => ({
  header: HEADER,
  board: boardAfter(MIDWAY),
  elapsedMs: 4200,
  stopping: false,
  notices: [],
  help: false,
  ...over,
});

describe('check board', () => {
  it.each([
    // [records, changed by the last one]
    [[rec('envelope', 'waiting', '', 0)], false], // the initial state is not a change
    [[rec('envelope', 'running', 'on client-1', 10)], true],
    [[rec('envelope', 'running', 'on client-1', 10), rec('envelope', 'running', 'on client-2', 20)], false], // a new detail only
    [[rec('envelope', 'running', '', 10), rec('envelope', 'pass', 'ok', 20)], true],
    [[rec('not.listed', 'running', '', 10)], true], // unknown ids are shown too
  ])('%# changed: %s', (records, changed) => {
    const before = boardAfter(records.slice(0, -1));
    expect(applyProgress(before, records[records.length - 1]!).changed).toBe(changed);
  });

  it('keeps the header order, appends unknown ids, and tracks times', () => {
    const board = boardAfter([...MIDWAY, rec('extra.check', 'running', '', 3500)]);
    expect(board.rows.map((r) => [r.id, r.state])).toEqual([
      ['envelope', 'pass'],
      ['auth.missing_token', 'waiting'],
      ['ratelimit.threshold', 'running'],
      ['ratelimit.retry_after_honoured', 'waiting'],
      ['payload.limit', 'fail'],
      ['tls', 'skip'],
      ['extra.check', 'running'],
    ]);
    expect(countStates(board)).toEqual({ waiting: 2, running: 2, pass: 1, fail: 1, skip: 1 });
    expect(board.log.map((r) => `${r.id}:${r.state}`)).toHaveLength(7);
  });

  it.each([
    ['envelope', 5000, 300], // took 0.3 s
    ['ratelimit.threshold', 5000, 4500], // running for 4.5 s
    ['tls', 5000, null], // skipped without running
    ['auth.missing_token', 5000, null], // waiting
  ])('duration of %s at %d ms: %s', (id, nowMs, duration) => {
    expect(
      checkDurationMs(
        boardAfter(MIDWAY).rows.find((r) => r.id === id)!,
        nowMs,
      ),
    ).toBe(duration);
  });

  it('keeps a bounded log', () => {
    const records = Array.from({ length: LOG_LIMIT + 20 }, (_, i) =>
      rec('envelope', i % 2 === 0 ? 'running' : 'pass', '', i),
    );
    expect(boardAfter(records).log).toHaveLength(LOG_LIMIT);
  });

  it.each([
    ['waiting', 0, '· wait'],
    ['pass', 0, '✓ PASS'],
    ['fail', 0, '✗ FAIL'],
    ['skip', 0, '– SKIP'],
    ['running', 0, '⠋ RUN '],
    ['running', 250, '⠙ RUN '], // the spinner moves with the clock
  ] as const)('mark of %s at %d ms', (state, nowMs, mark) => expect(stateMark(state, nowMs)).toBe(mark));
});

describe('verify dashboard frame', () => {
  it('renders each check with its state, time and reason, and a log of changes, at 80×24', () => {
    expect(`\n${frameToText(renderVerifyFrame(frameModel(), { width: 80, height: 24 }))}\n`).toMatchInlineSnapshot(`
      "
      rpcload verify · http://127.0.0.1:41234                             elapsed 4.2s
      ✓ 1 pass  ✗ 1 fail  – 1 skip  ▸ 1 running  · 2 waiting  ████████░░░░░░░░ 3/6    
      result results/20250101T120000Z-verify.json                       ? help  q stop
      ┌─ checks ─────────────────────────────────────────────────────────────────────┐
      │ ✓ PASS envelope                         0.3s  12 responses, all valid envelo │
      │ · wait auth.missing_token                                                    │
      │ ⠦ RUN  ratelimit.threshold              3.7s  on client-3                    │
      │ · wait ratelimit.retry_after_honoured                                        │
      │ ✗ FAIL payload.limit                    2.3s  boundary at 50,000 bytes, expe │
      │ – SKIP tls                                    plain http target: nothing to  │
      └──────────────────────────────────────────────────────────────────────────────┘
      ┌─ log · state changes, latest last ───────────────────────────────────────────┐
      │ [  0.1s] envelope ▸ RUN  on client-1                                         │
      │ [  0.4s] envelope ✓ PASS  12 responses, all valid envelopes                  │
      │ [  0.5s] ratelimit.threshold ▸ RUN  on client-3                              │
      │ [  0.6s] tls – SKIP  plain http target: nothing to check                     │
      │ [  0.7s] payload.limit ▸ RUN                                                 │
      │ [  3.0s] payload.limit ✗ FAIL  boundary at 50,000 bytes, expected 100,000    │
      │          or 102,400                                                          │
      │                                                                              │
      │                                                                              │
      │                                                                              │
      │                                                                              │
      └──────────────────────────────────────────────────────────────────────────────┘
      "
    `);
  });

  it('updates as records land: waiting → running → pass', () => {
    const at = (records: readonly CheckProgress[]): string =>
      frameToText(renderVerifyFrame(frameModel({ board: boardAfter(records) }), { width: 80, height: 24 }));
    expect(at([])).toMatch(/· wait envelope/);
    expect(at([])).toMatch(/waiting for the first check to start…/);
    expect(at(MIDWAY.slice(0, 1))).toMatch(/RUN {2}envelope +4\.1s {2}on client-1/);
    expect(at(MIDWAY.slice(0, 2))).toMatch(/✓ PASS envelope +0\.3s {2}12 responses, all valid envelo/);
    expect(at(MIDWAY.slice(0, 2))).toMatch(/✓ 1 pass {2}✗ 0 fail {2}– 0 skip {2}. 0 running {2}· 5 waiting/);
  });

  it.each([
    [80, 24],
    [120, 40],
    [60, 14],
    [30, 8],
  ])('%d×%d: exactly the screen', (width, height) => {
    const lines = renderVerifyFrame(frameModel({ help: width > 50 }), { width, height });
    expect(lines).toHaveLength(height);
    for (const line of lines) expect(lineText(line)).toHaveLength(width);
  });

  it('shows "+N more" when the checks do not fit, and STOPPING once asked', () => {
    const text = frameToText(renderVerifyFrame(frameModel({ stopping: true }), { width: 80, height: 9 }));
    expect(text).toMatch(/\+\d more/);
    expect(text).toMatch(/STOPPING…/);
  });

  it('sanitizes details from the server and colours by state only with colour on', () => {
    const hostile = frameModel({
      board: boardAfter([rec('envelope', 'fail', '\u001b]0;pwned\u0007{bold}body{/bold}\u001b[31m', 10)]),
    });
    const lines = renderVerifyFrame(hostile, { width: 80, height: 24 });
    // eslint-disable-next-line no-control-regex
    expect(frameToTags(lines, true)).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(frameToText(lines)).toMatch(/✗ FAIL envelope +{bold}body{\/bold}/);
    expect(frameToTags(lines, true)).toMatch(/\{red-fg\}✗ FAIL\{\/red-fg\}/);
    expect(frameToTags(lines, false)).not.toMatch(/-fg\}/);
  });
});

describe('plain verify lines', () => {
  it('prints one line per state change, nothing for repeats or the initial waiting', () => {
    const lines: string[] = [];
    const view = createPlainChecks(HEADER, { write: (line) => lines.push(line) });
    view.start();
    for (const record of [
      rec('envelope', 'waiting', '', 0),
      ...MIDWAY.slice(0, 2),
      rec('envelope', 'pass', 'again', 450),
      rec('tls', 'skip', 'plain http\u001b[2J', 600),
    ])
      view.onProgress(record);
    view.stop();
    expect(lines).toEqual([
      '[  0.1s] envelope ▸ RUN  on client-1',
      '[  0.4s] envelope ✓ PASS  12 responses, all valid envelopes',
      '[  0.6s] tls – SKIP  plain http',
    ]);
  });
});

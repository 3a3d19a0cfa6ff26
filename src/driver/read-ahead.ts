/**
 * A bounded read-ahead: a reader fills it in the background (from a file), a consumer on the load's
 * hot path takes from it synchronously. The reader pauses once `high` items are buffered and reads
 * on once the consumer has taken the buffer down to `low`, so memory is bounded in items whatever
 * the source's size. `ready` resolves once the buffer is first full, the reader has ended or the
 * read-ahead is closed: what a run waits for before its clock starts. Taking allocates nothing (the
 * buffer is an array read from a moving head, compacted each time the head passes `high`), and the
 * reader's waits cost one promise per pause, never one per item. It serves the replay's calls
 * (replay-feed.ts) and the data sets' rows (data-feed.ts).
 */

export interface ReadAheadBounds {
  /** The reader pauses with this many items buffered (and `ready` resolves). */
  readonly high: number;
  /** It reads on once the consumer has taken the buffer down to this many. */
  readonly low: number;
}

export class ReadAhead<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  private ended = false;
  private stopped = false;
  private resumeReader: (() => void) | null = null;
  private onMore: (() => void) | null = null;
  private markReady!: () => void;
  /** Resolves once the buffer is full, the reader has ended, or the read-ahead is closed: the clock may start. */
  readonly ready = new Promise<void>((resolve) => (this.markReady = resolve));

  constructor(private readonly bounds: ReadAheadBounds) {}

  /** Items read and not yet taken. */
  get buffered(): number {
    return this.items.length - this.head;
  }

  /** No item is buffered and none will come. */
  get exhausted(): boolean {
    return this.ended && this.buffered === 0;
  }

  /** The consumer has stopped: the reader stops reading. */
  get closed(): boolean {
    return this.stopped;
  }

  /** The buffer holds `high` items: the reader waits for `room()` before reading on. */
  get full(): boolean {
    return this.buffered >= this.bounds.high;
  }

  /** Array slots held: the items buffered and the slots already taken that were not compacted yet. */
  get heldSlots(): number {
    return this.items.length;
  }

  /** The next item, left buffered; undefined when none is buffered now. */
  peek(): T | undefined {
    return this.items[this.head];
  }

  /** Take the next item; undefined when none is buffered now. */
  take(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= this.bounds.high) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    if (this.resumeReader !== null && this.buffered <= this.bounds.low) this.wakeReader();
    return item;
  }

  /** An item taken that could not be used after all: it is taken next. */
  giveBack(item: T): void {
    if (this.head > 0) this.items[--this.head] = item;
    else this.items.unshift(item);
  }

  /** Call `listener` once, when more items are buffered or the reader has ended (a consumer found none). */
  whenMore(listener: () => void): void {
    this.onMore = listener;
  }

  /** The consumer stops: the reader is released (and stops), `ready` resolves, a `whenMore` listener is dropped. */
  close(): void {
    this.stopped = true;
    this.onMore = null;
    this.wakeReader();
    this.markReady();
  }

  /** The reader's side: buffer an item (it waits for `room()` once the buffer is full). */
  push(item: T): void {
    this.items.push(item);
    if (this.items.length - this.head >= this.bounds.high) this.markReady();
  }

  /** The reader's side: tell a consumer waiting in `whenMore` that items were buffered. */
  announce(): void {
    const listener = this.onMore;
    this.onMore = null;
    listener?.();
  }

  /**
   * The reader's side: resolves at once while there is room; once the buffer is full, waits until
   * the consumer has taken it down to `low`, or closed.
   */
  room(): Promise<void> {
    if (!this.full || this.stopped) return Promise.resolve();
    return new Promise((resolve) => (this.resumeReader = resolve));
  }

  /** The reader's side: no more items will come (the source's end, or a failure it reported). */
  end(): void {
    this.ended = true;
    this.markReady();
    this.announce();
  }

  private wakeReader(): void {
    const resume = this.resumeReader;
    this.resumeReader = null;
    resume?.();
  }
}

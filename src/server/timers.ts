/**
 * Timers the server owns (work delays, added latency, dripped replies), tracked so that close()
 * can cancel them all: a pending 60 s `work` delay must not keep a closed server's process alive.
 */
export class TimerSet {
  readonly #timers = new Set<NodeJS.Timeout>();

  /** Run `fn` after `delayMs`, unless the set is cleared first. */
  schedule(fn: () => void, delayMs: number): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      fn();
    }, delayMs);
    this.#timers.add(timer);
    return timer;
  }

  cancel(timer: NodeJS.Timeout): void {
    clearTimeout(timer);
    this.#timers.delete(timer);
  }

  /** Resolves after `delayMs`; never settles once cleared (the request it delays is being torn down). */
  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.schedule(resolve, delayMs));
  }

  clear(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }
}

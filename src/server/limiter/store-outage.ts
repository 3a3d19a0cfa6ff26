/**
 * A simulated outage of the store a rate limiter keeps its counts in (Redis and the like), and
 * what the limiter does meanwhile. The store goes down while a fault file exists (polled), or
 * while a signal has switched it down; the policy says whether the limiter then lets everything
 * through (`open`) or refuses everything, with 429 (`closed-429`) or 503 (`closed-503`).
 */
import { existsSync } from 'node:fs';
import type { StoreOutagePolicy } from '../options.ts';

/** How often the fault file is looked for (ms): a hook that creates it sees the outage begin within this. */
export const FAULT_FILE_POLL_MS = 50;

export class StoreOutage {
  #byFile = false;
  #bySwitch = false;
  #poll: NodeJS.Timeout | null = null;

  constructor(
    readonly policy: StoreOutagePolicy,
    faultFile: string | null,
  ) {
    if (faultFile === null) return;
    this.#byFile = existsSync(faultFile);
    this.#poll = setInterval(() => (this.#byFile = existsSync(faultFile)), FAULT_FILE_POLL_MS).unref();
  }

  /** Whether the store is down now. */
  get down(): boolean {
    return this.#byFile || this.#bySwitch;
  }

  /** Switch the store down or up (a signal, or a test), independently of the fault file. */
  set(down: boolean): void {
    this.#bySwitch = down;
  }

  /** Flip the switch; returns whether the store is now down. */
  toggle(): boolean {
    this.#bySwitch = !this.#bySwitch;
    return this.down;
  }

  /** Stop polling the fault file. */
  dispose(): void {
    if (this.#poll !== null) clearInterval(this.#poll);
    this.#poll = null;
  }
}

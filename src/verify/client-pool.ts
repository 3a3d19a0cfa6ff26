/**
 * The client IDs the verify checks share: which are rested, how much quota each has left, and which
 * check holds which, so that checks never disturb each other's counts.
 */
import type { Clock } from './clock.ts';

/**
 * What a check needs from a client ID:
 * - `fresh`: exclusive use of a client that sent nothing for a whole window, so every limiter
 *   (per-client, clock-aligned, sliding, bucket) has forgotten it: its quota is whole;
 * - `spare`: a few requests' worth of quota on a client that may be shared with other light checks.
 */
export type ClientNeed = { readonly kind: 'fresh' } | { readonly kind: 'spare'; readonly requests: number };

/** Clients granted for a check, in the order of its needs. */
export interface Lease {
  readonly clientIds: readonly string[];
  readonly needs: readonly ClientNeed[];
}

/**
 * A client counts as rested this long after the end of its last response plus one window: the
 * server saw that request before the response ended, so its window (or log entry) is over.
 */
const FRESH_MARGIN_MS = 50;

interface ClientState {
  /** Response end times (monotonic ms) of requests within the last window, oldest first. */
  readonly doneMs: number[];
  exclusive: boolean;
  reserved: number;
}

/**
 * The quota ledger and the leases over the available client IDs. Every API request a check
 * makes is recorded here, so the scheduler knows which client is rested and how much quota a
 * shared one has left, without asking the server.
 */
export class ClientPool {
  readonly #clients = new Map<string, ClientState>();

  constructor(
    clientIds: readonly string[],
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: Clock,
  ) {
    for (const id of clientIds) this.#clients.set(id, { doneMs: [], exclusive: false, reserved: 0 });
  }

  /** Note one API request by `clientId` that ended at `doneMs` (any outcome, refusals too). */
  record(clientId: string, doneMs: number): void {
    this.#clients.get(clientId)?.doneMs.push(doneMs);
  }

  /**
   * Grant every need at once (distinct clients), or nothing. A spare need may take a rested
   * client only while more than `keepRested` of them stay rested for the fresh needs waiting.
   */
  tryLease(needs: readonly ClientNeed[], keepRested = 0): Lease | null {
    const taken = new Set<string>();
    const granted: string[] = [];
    // Fresh needs first: they are the scarce kind, and spare needs can then avoid those clients.
    const order = needs
      .map((need, index) => ({ need, index }))
      .sort((a, b) => (a.need.kind === b.need.kind ? 0 : a.need.kind === 'fresh' ? -1 : 1));
    for (const { need, index } of order) {
      const id =
        need.kind === 'fresh'
          ? this.#pickFresh(taken)
          : this.#pickSpare(this.#reservable(need.requests), taken, this.#restedCount(taken) > keepRested);
      if (id === undefined) return null;
      taken.add(id);
      granted[index] = id;
    }
    needs.forEach((need, index) => {
      const state = this.#clients.get(granted[index]!)!;
      if (need.kind === 'fresh') state.exclusive = true;
      else state.reserved += this.#reservable(need.requests);
    });
    return { clientIds: granted, needs };
  }

  release(lease: Lease): void {
    lease.needs.forEach((need, index) => {
      const state = this.#clients.get(lease.clientIds[index]!)!;
      if (need.kind === 'fresh') state.exclusive = false;
      else state.reserved -= this.#reservable(need.requests);
    });
  }

  /** The earliest future time a client that is not leased becomes rested; null when none will. */
  nextRestedAtMs(): number | null {
    const now = this.clock.now();
    let earliest: number | null = null;
    for (const state of this.#clients.values()) {
      if (state.exclusive || state.reserved > 0) continue;
      const at = this.#restedAtMs(state);
      if (at > now && (earliest === null || at < earliest)) earliest = at;
    }
    return earliest;
  }

  /**
   * When every client will be rested and none is leased: the moment a quota shared by all client
   * IDs is whole again. Null while a client is leased.
   */
  sharedQuotaRestedAtMs(): number | null {
    let latest = -Infinity;
    for (const state of this.#clients.values()) {
      if (state.exclusive || state.reserved > 0) return null;
      latest = Math.max(latest, this.#restedAtMs(state));
    }
    return latest;
  }

  /** A reservation never asks for more than a rested client has (checks that need more wait out refusals). */
  #reservable(requests: number): number {
    return Math.min(requests, Math.max(0, this.limit - 1));
  }

  #restedAtMs(state: ClientState): number {
    const last = state.doneMs.at(-1);
    return last === undefined ? -Infinity : last + this.windowMs + FRESH_MARGIN_MS;
  }

  #used(state: ClientState): number {
    const since = this.clock.now() - this.windowMs - FRESH_MARGIN_MS;
    while (state.doneMs.length > 0 && state.doneMs[0]! < since) state.doneMs.shift();
    return state.doneMs.length;
  }

  #isRested(id: string, state: ClientState, taken: ReadonlySet<string>): boolean {
    return !taken.has(id) && !state.exclusive && state.reserved === 0 && this.#restedAtMs(state) <= this.clock.now();
  }

  #restedCount(taken: ReadonlySet<string>): number {
    let count = 0;
    for (const [id, state] of this.#clients) if (this.#isRested(id, state, taken)) count++;
    return count;
  }

  #pickFresh(taken: ReadonlySet<string>): string | undefined {
    for (const [id, state] of this.#clients) if (this.#isRested(id, state, taken)) return id;
    return undefined;
  }

  /**
   * A shared client with room for `requests` more (one request of headroom kept): one already in
   * use if possible, a rested one only when `mayTakeRested`.
   */
  #pickSpare(requests: number, taken: ReadonlySet<string>, mayTakeRested: boolean): string | undefined {
    const candidates: { id: string; room: number; rested: boolean }[] = [];
    for (const [id, state] of this.#clients) {
      if (taken.has(id) || state.exclusive) continue;
      const room = this.limit - 1 - this.#used(state) - state.reserved;
      const rested = this.#isRested(id, state, taken);
      if (room >= requests && (mayTakeRested || !rested)) candidates.push({ id, room, rested });
    }
    candidates.sort((a, b) => Number(a.rested) - Number(b.rested) || b.room - a.room);
    return candidates[0]?.id;
  }
}

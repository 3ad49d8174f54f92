/**
 * Parking per destination (docs/webhooks.md#one-receiver-cannot-hold-up-another): each destination
 * (scheme://userinfo@host:port) has at most `concurrency` requests on the wire at once; due rows
 * beyond that wait here, in memory, parked off the due index in due order, until one of its
 * requests leaves the wire. Also the attempts on the wire now, by row.
 */
import type { DueRow } from "./webhooks.repo.js";

/** An attempt on the wire (claimed and committed, or about to be). */
export interface Flight {
  row: DueRow;
  /** Its attempt number (1-based). */
  n: number;
  at: number;
  /** Its destination (`destinationOf`). */
  dest: string;
  /** Its job in the sender thread (src/webhooks/sender.ts), once sent; 0 before. */
  job: number;
}

export interface ParkedRow {
  seq: number;
  id: string;
}

/**
 * One destination's parked rows, oldest due first: a FIFO whose take is O(1). It was an array
 * taken from with shift(), which copies the whole rest of a large array every time: with 200,000
 * callbacks parked behind one receiver, claims spent 11 s of a 45 s advance in shift(), up to
 * ~64 ms a claim at 1,000,000 (docs/performance.md). Taken slots are dropped once they are half the array.
 */
export class ParkedQueue {
  private items: Array<ParkedRow | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(row: ParkedRow): void {
    this.items.push(row);
  }

  shift(): ParkedRow | undefined {
    if (this.head >= this.items.length) return undefined;
    const row = this.items[this.head];
    this.items[this.head++] = undefined;
    if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return row;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

export interface Destination {
  active: number;
  /** Parked rows (seq, id), oldest due first. */
  queue: ParkedQueue;
}

/** The destination a per-destination limit counts against: `scheme://[userinfo@]host[:port]`. */
export function destinationOf(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(url)?.[0] ?? url;
}

/**
 * A URL with its userinfo (`user:password@`) replaced by `***@`, for the journal, the events and
 * logs: the receiver still gets the real one (credentials in a callbackUrl are not shown back).
 */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, "$1***@");
}

export class Destinations {
  /** Attempts on the wire, by row seq. */
  readonly flights = new Map<number, Flight>();
  private readonly dests = new Map<string, Destination>();
  /** Destinations with parked rows and room for another request. */
  readonly ready = new Set<string>();
  /** Rows parked over all destinations. */
  parkedCount = 0;
  /** When the oldest parked row became due to us (what nextDueAt reports while one can go). */
  parkedAt = 0;

  /** `concurrency`: requests (and sockets) on the wire at once to one destination. */
  constructor(readonly concurrency: number) {}

  /** A destination that has a request on the wire or a row parked, else undefined. */
  get(key: string): Destination | undefined {
    return this.dests.get(key);
  }

  /** The destination of `key`, made if it had nothing on the wire or parked. */
  of(key: string): Destination {
    let dest = this.dests.get(key);
    if (!dest) {
      dest = { active: 0, queue: new ParkedQueue() };
      this.dests.set(key, dest);
    }
    return dest;
  }

  /** A parked row waits in memory behind its destination's others (ready at once if the destination has room). */
  park(dest: Destination, seq: number, id: string, at: number, key?: string): void {
    if (this.parkedCount === 0) this.parkedAt = at;
    this.parkedCount++;
    dest.queue.push({ seq, id });
    if (key !== undefined && dest.active < this.concurrency) this.ready.add(key);
  }

  /** The next parked row of a destination (the caller checked there is one). */
  unpark(dest: Destination): ParkedRow {
    this.parkedCount--;
    return dest.queue.shift() as ParkedRow;
  }

  /** A claimed row's flight, counted against its destination (the caller marks it in flight in the database). */
  fly(row: DueRow, key: string, dest: Destination, at: number): Flight {
    dest.active++;
    const f: Flight = {
      row,
      n: row.attemptCount + 1,
      at,
      dest: key,
      job: 0,
    };
    this.flights.set(row.seq, f);
    return f;
  }

  /** An attempt leaves the wire (claimed and undone, or its result in): its destination has room again. */
  leave(seq: number, key: string): void {
    this.flights.delete(seq);
    const dest = this.dests.get(key);
    if (!dest) return;
    dest.active = Math.max(0, dest.active - 1);
    // rows parked behind it (by a claim, or by the outbox) go with the next claim
    if (dest.queue.length > 0) this.ready.add(key);
    else if (dest.active === 0) this.dests.delete(key);
  }

  /** Claims whose writes were rolled back: forgotten (their rows are still due, or parked, in the database). */
  unclaim(flights: Flight[]): void {
    for (const f of flights) this.leave(f.row.seq, f.dest);
  }

  /** Forgets every parked row (reset dropped them). */
  clearParked(): void {
    for (const dest of this.dests.values()) dest.queue.clear();
    this.ready.clear();
    this.parkedCount = 0;
  }
}

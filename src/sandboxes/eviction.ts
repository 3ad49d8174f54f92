/**
 * When sandboxes close and go (docs/parallel-suites.md): a sandbox not used for its TTL (real time) is
 * deleted; an open one idle for `idleMs` with nothing in flight is closed; beyond `maxOpen` the least
 * recently used are closed; a closed one is opened again when its work falls due. Pure choices: the
 * registry acts on them.
 */
import type { Row } from "./rows.js";

/** What the choices need to know of an open sandbox. */
export interface OpenState {
  active: number;
  lastReal: number;
  closing?: Promise<void> | undefined;
  comp: { busy(): boolean };
}

export const expired = (row: Row, now: number) => now >= row.lastUsedReal + row.ttlMs;

/** A closed sandbox whose work fell due. */
export const due = (row: Row, now: number) => row.wakeReal !== null && row.wakeReal <= now;

/** The open sandboxes idle long enough to close. */
export function idle(opened: Map<string, OpenState>, now: number, idleMs: number): string[] {
  const out: string[] = [];
  for (const [id, e] of opened) {
    if (!e.closing && e.active === 0 && now - e.lastReal >= idleMs && !e.comp.busy()) out.push(id);
  }
  return out;
}

/**
 * The least recently used beyond `maxOpen` that are not serving a request (`opened` is in order of
 * use, least recent first): closed in the tick, not on the request that opened one more, so a burst
 * of creates pays no closing.
 */
export function overflow(opened: Map<string, OpenState>, maxOpen: number): string[] {
  const out: string[] = [];
  let over = opened.size - maxOpen;
  for (const [id, e] of opened) {
    if (over <= 0) break;
    if (e.closing || e.active > 0 || e.comp.busy()) continue;
    out.push(id);
    over--;
  }
  return out;
}

/** Where its clock is now by its anchor: it runs at the server's scale while closed. */
export const anchorNow = (row: Row, scale: number, now: number) => row.clockMs + Math.max(0, scale * (now - row.clockReal));

/** Real ms at which virtual `due` arrives for a closed sandbox anchored in `row`; null for none. */
export function wakeOf(due: number | undefined, row: Row, scale: number): number | null {
  if (due === undefined) return null;
  if (due <= row.clockMs) return row.clockReal; // due already: open it at the next tick
  return row.clockReal + Math.ceil((due - row.clockMs) / scale);
}

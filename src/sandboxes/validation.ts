/**
 * What a create checks before anything is made (docs/parallel-suites.md): its ttl, its startTime, its
 * name, and the 404s that name a sandbox. Each bad input is a 400 naming its field.
 */
import { MAX_CLOCK_ISO, MAX_CLOCK_MS } from "../control/control.service.js";
import { INSTANT_REASON, parseInstant } from "../platform/clock.js";
import { addDuration, durationReason, parseDuration } from "../platform/duration.js";
import { badRequest, invalidField, notFound } from "../platform/errors.js";

export const DEFAULT_TTL = "PT1H";
export const MIN_TTL_MS = 1_000;
export const MAX_TTL_MS = 7 * 86_400_000;
/** `sbx_` + 20 base-62 characters (platform/ids.ts). */
export const SANDBOX_ID = /^sbx_[0-9A-Za-z]{20}$/;

/** Real ms of an ISO 8601 duration of real time (default PT1H), between PT1S and P7D from `now`. */
export function ttlOf(ttl: string | undefined, now: number): number {
  const text = ttl ?? DEFAULT_TTL;
  const d = parseDuration(text);
  if (!d) throw invalidField("ttl", durationReason(text));
  const ms = addDuration(now, d) - now;
  if (!Number.isFinite(ms) || ms < MIN_TTL_MS || ms > MAX_TTL_MS) {
    throw badRequest(`Invalid field: ttl (between PT1S and P7D; got ${text.slice(0, 40)})`);
  }
  return ms;
}

/** Virtual ms of a startTime, or undefined without one. */
export function startOf(startTime: string | undefined): number | undefined {
  if (startTime === undefined) return undefined;
  const startMs = parseInstant(startTime);
  if (startMs === undefined) throw invalidField("startTime", INSTANT_REASON);
  if (startMs > MAX_CLOCK_MS || startMs < 0) {
    throw invalidField("startTime", `must be from 1970-01-01T00:00:00Z to ${MAX_CLOCK_ISO}, e.g. "2026-01-15T12:00:00Z"`);
  }
  return startMs;
}

export function checkName(name: string | undefined): void {
  if (name !== undefined && name.length > 200) throw invalidField("name", "at most 200 characters");
}

/** A fork takes its clock and its scenarios from its source (docs/snapshots.md). */
export function checkFork(input: { startTime?: string | undefined; scenario?: unknown }): void {
  if (input.startTime !== undefined) throw invalidField("startTime", "not with from: a copy's clock is at its source's now");
  if (input.scenario !== undefined) throw invalidField("scenario", "not with from: a copy has its source's scenarios");
}

/** An id as shown in an error: a long or odd one is cut, never echoed whole. */
const shown = (id: string) => (id.length > 64 ? `${id.slice(0, 64)}…` : id);

/** Unknown, deleted or malformed → 404 naming it. */
export function sandboxNotFound(id: string) {
  return notFound(`Sandbox not found: ${shown(id)}`);
}

/** A fork's `from` that names no sandbox → 404 naming the field. */
export function fromNotFound(id: string) {
  return notFound(`Invalid field: from (sandbox not found: ${shown(id)})`);
}

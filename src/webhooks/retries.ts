/**
 * The retry schedule of a webhook delivery (docs/webhooks.md#retries): when the next attempt goes
 * after a failed one, and the errors recorded for an attempt that never got its answer.
 */

/** Minutes between a failed attempt n (1-based) and attempt n+1 (docs/webhooks.md: 2, 4, 8, 16, 32). */
export const RETRY_DELAYS_MIN = [2, 4, 8, 16, 32] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MIN.length + 1;
export const INTERRUPTED_ERROR = "interrupted: sandbox stopped during the attempt";
/** An attempt cut off by its sandbox's deletion: nothing is left to retry it, so it is the last. */
export const DELETED_ERROR = "interrupted: sandbox deleted during the attempt";
const MINUTE = 60_000;

/** When attempt `n` (1-based) failed at `failedAt`: the next attempt's time, or null when it was the last. */
export function nextAttemptAfter(n: number, failedAt: number): number | null {
  const delay = RETRY_DELAYS_MIN[n - 1];
  return delay === undefined ? null : failedAt + delay * MINUTE;
}

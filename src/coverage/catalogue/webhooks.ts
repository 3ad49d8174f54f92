/**
 * The behaviours of webhook delivery in the catalogue (docs/coverage.md#the-catalogue), from the
 * delivery's own rules: an attempt answered 2xx at once or after retries, a failed attempt (it is
 * retried), a delivery failed for good after the last attempt of the retry schedule
 * (src/webhooks/retries.ts), each chaos mode (src/webhooks/chaos.ts) met, and a delivery whose bad
 * signature the receiver refused. A replay is counted where it is made (src/webhooks/journal.ts).
 */
import { type Act, type Behaviour, cause } from "../../platform/behaviours.js";
import { CHAOS_MODES, DEFAULT_CHAOS_DELAY, REORDER_HOLD_MS } from "../../webhooks/chaos.js";
import { MAX_ATTEMPTS, RETRY_DELAYS_MIN } from "../../webhooks/retries.js";

export const WEBHOOK = {
  firstAttempt: "webhook.delivered.first-attempt",
  afterRetries: "webhook.delivered.after-retries",
  attemptFailed: "webhook.attempt.failed",
  failed: "webhook.failed",
  signatureRefused: "webhook.signature.refused",
} as const;

/** `webhook.chaos.badsignature`. */
export const chaosBehaviour = (mode: string) => `webhook.chaos.${mode.toLowerCase()}`;

/** What one attempt (a `webhook` event, docs/events.md) shows: these behaviours. */
export function attemptBehaviours(attempt: number, httpStatus: number | undefined, chaos: string | undefined): string[] {
  const ok = httpStatus !== undefined && httpStatus >= 200 && httpStatus < 300;
  const out: string[] = [];
  if (ok) out.push(attempt === 1 ? WEBHOOK.firstAttempt : WEBHOOK.afterRetries);
  else {
    out.push(WEBHOOK.attemptFailed);
    if (attempt >= MAX_ATTEMPTS) out.push(WEBHOOK.failed);
    if (chaos === "badSignature") out.push(WEBHOOK.signatureRefused);
  }
  if (chaos) out.push(chaosBehaviour(chaos));
  return out;
}

/** Past the whole retry schedule: every attempt has been made. */
const PAST_RETRIES = `PT${RETRY_DELAYS_MIN.reduce((a, b) => a + b, 0) + 1}M`;

/** How long a chaos mode holds a delivery back before it goes (none: at once). */
const HELD: Record<string, string | undefined> = {
  delay: DEFAULT_CHAOS_DELAY,
  reorder: `PT${REORDER_HOLD_MS / 60_000}M`,
};

export function webhookBehaviours(): Behaviour[] {
  const pay = (webhook: "ok" | "refuse-first" | "refuse-all"): Act => ({ act: "pay", webhook });
  return [
    { id: WEBHOOK.firstAttempt, area: "webhooks", title: "A webhook delivered at its first attempt", cause: cause(pay("ok")) },
    {
      id: WEBHOOK.afterRetries,
      area: "webhooks",
      title: "A webhook delivered after a failed attempt (retried)",
      // a minute more than the first retry's delay: a running clock has moved on since the attempt
      cause: cause(pay("refuse-first"), { act: "advance", by: `PT${RETRY_DELAYS_MIN[0] + 1}M` }),
    },
    {
      id: WEBHOOK.attemptFailed,
      area: "webhooks",
      title: "A webhook attempt not answered 2xx (it is retried)",
      cause: cause(pay("refuse-all")),
    },
    {
      id: WEBHOOK.failed,
      area: "webhooks",
      title: `A webhook failed for good (${MAX_ATTEMPTS} attempts not answered 2xx)`,
      cause: cause(pay("refuse-all"), { act: "advance", by: PAST_RETRIES }),
    },
    {
      id: WEBHOOK.signatureRefused,
      area: "webhooks",
      title: "A webhook with a wrong X-Checksum refused by the receiver (its signature is checked)",
      cause: cause({ act: "chaos", mode: "badSignature" }, pay("refuse-all")),
    },
    ...CHAOS_MODES.map((mode): Behaviour => {
      const held = HELD[mode];
      return {
        id: chaosBehaviour(mode),
        area: "webhooks",
        title: `A webhook sent with chaos ${mode}`,
        cause: cause({ act: "chaos", mode }, pay("ok"), ...(held ? [{ act: "advance", by: held } as Act] : [])),
      };
    }),
  ];
}

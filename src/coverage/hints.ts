/**
 * A Cause in words (docs/coverage.md#hints): the hint a report shows beside a behaviour never seen.
 * Written from the same acts src/coverage/recipes.ts turns into a steps file, so a hint says exactly
 * what the test that walks the catalogue does.
 */
import type { Act, Answering, Cause, RuleOutcome } from "../platform/behaviours.js";

const ANSWERING: Record<Answering, string> = {
  ok: "a callbackUrl that answers 2xx",
  "refuse-first": "a callbackUrl that answers its first attempt non-2xx, then 2xx",
  "refuse-all": "a callbackUrl that answers every attempt non-2xx",
};

/** `{operation: refund, status: FAILED, declineCode: 12}`, as a scenario file writes it. */
export function ruleText(rule: RuleOutcome): string {
  return `{${Object.entries(rule)
    .map(([k, v]) => `${k}: ${v}`)
    .join(", ")}}`;
}

const days = (n: number) => `${n} day${n === 1 ? "" : "s"}`;

function phrase(a: Act): string {
  switch (a.act) {
    case "rule":
      return `with the scenario rule ${ruleText(a.rule)}`;
    case "chaos":
      return `with the merchant's webhookChaos {${a.mode}: 1}`;
    case "convert":
      return `with the merchant's processingCurrency ${a.processingCurrency} (an order in another currency is converted)`;
    case "pay":
      return `pay by card${a.card ? ` ${a.card}` : ""}${a.threeDS ? " asking for 3DS" : ""}${a.webhook ? ` with ${ANSWERING[a.webhook]}` : ""}`;
    case "tokenize":
      return a.card ? `tokenize card ${a.card}` : "tokenize a card";
    case "charge":
      return "charge the token (one-click)";
    case "subscribe": {
      let text = `create a subscription${a.card ? ` on card ${a.card}` : ""}`;
      if (a.trial) text += ` with skipFirstCharge, its startDate in ${days(a.startIn ?? 1)}`;
      if (a.endIn !== undefined) text += ` and its endDate in ${days(a.endIn)}`;
      return text;
    }
    case "set-status":
      return `PUT its status ${a.status}`;
    case "unsubscribe":
      return "DELETE it";
    case "refund":
      return a.amount === "all"
        ? "refund all of it"
        : a.amount === "part"
          ? "refund part of it"
          : "refund more than is left of it";
    case "payout":
      return a.card ? `pay out to card ${a.card}` : "pay out to a card";
    case "apm-pay":
      return `an APM pay-in with ${a.method}${a.decrypted ? ` and the decrypted card ${a.decrypted}` : a.fields ? "" : " without its apmPayload fields (its page asks the shopper)"}`;
    case "apm-payout":
      return `an APM payout with ${a.method}${a.fields ? "" : " without its apmPayload fields (its page asks for them)"}`;
    case "3ds":
      return `answer the 3DS challenge: ${a.outcome}`;
    case "page":
      return `answer its page: ${a.outcome}`;
    case "complete":
      return `complete it ${a.status} (POST /_sandbox/transactions/{id}/complete)`;
    case "advance":
      return `advance the clock by ${a.by}`;
    case "replay":
      return "replay its webhook (POST /_sandbox/webhooks/{id}/replay)";
    case "again":
      return a.changed ? "send its requestId again with another body" : "send the same request again (same requestId, same body)";
    case "bad-call":
      switch (a.fault) {
        case "token":
          return "call the gateway with a wrong bearer token";
        case "body":
          return "send a body with an invalid field";
        case "unknown id":
          return "ask for the status of a transaction that does not exist";
      }
  }
}

const SETUP = new Set(["rule", "chaos", "convert"]);

/** `With the scenario rule {...}: pay by card, then refund part of it.` */
export function hintOf(c: Cause): string {
  const setup = c.acts.filter((a) => SETUP.has(a.act)).map(phrase);
  const steps = c.acts.filter((a) => !SETUP.has(a.act)).map(phrase);
  const text = `${setup.length > 0 ? `${setup.join(", ")}: ` : ""}${steps.join(", then ")}.`;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * The rules APM pay-ins and payouts share (CONTRACT §3 "APM methods", "APM flows"): the method's
 * checks, the first status from an outcome, and the payload as it may be kept. Pure functions.
 */
import { cardMask } from "../../platform/cards.js";
import { invalidField } from "../../platform/errors.js";
import type { OutcomeSpec } from "../../platform/fixtures.js";
import { DECLINE, SETTLE_AFTER } from "../transactions/lifecycle.js";
import { type ApmMethod, type Direction, methodOf, takesCurrency } from "./methods.js";

/**
 * The apmPayload as it may be kept and echoed (apmRequestPayload, CONTRACT §3 "Hosted payment page"):
 * the typed fields as sent or entered (bank account numbers and wallet ids are not card data, and a
 * test asserts what it sent), a wallet token with its shape but not its data, a decrypted PAN as its
 * card mask.
 */
export function echoPayload(payload: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...payload };
  if (out.token !== undefined) out.token = { paymentData: { data: "[masked]" } };
  if (out.decrypted !== undefined) {
    const pan = (payload.decrypted as { applicationPrimaryAccountNumber?: unknown }).applicationPrimaryAccountNumber;
    out.decrypted = {
      applicationPrimaryAccountNumber: typeof pan === "string" ? cardMask(pan.slice(0, 6), pan.slice(-4)) : null,
    };
  }
  return out;
}

/** PROCESSING (or PENDING) that settles SUCCEED a virtual minute later (CONTRACT §3 "APM flows"). */
export const SETTLING: OutcomeSpec = { status: "PROCESSING", completeAfter: SETTLE_AFTER, completeWith: "SUCCEED" };

export type Start = "shopper" | "wallet" | "direct" | "payout";

/**
 * The first status of an APM transaction from its outcome (CONTRACT §3 "APM methods", "APM flows"),
 * and the outcome whose deadline applies (none: waits for the page or the complete call).
 */
export function firstStatus(spec: OutcomeSpec, start: Start): { status: string; declineCode: number | null; spec?: OutcomeSpec } {
  if (spec.status === "FAILED") return { status: "FAILED", declineCode: spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER };
  const ruleWaits = spec.status === "PROCESSING" || spec.status === "PENDING";
  switch (start) {
    case "shopper":
      return { status: "PENDING", declineCode: null, ...(ruleWaits ? { spec: { ...spec, status: "PENDING" } } : {}) };
    case "wallet":
      return ruleWaits ? { status: spec.status, declineCode: null, spec } : { status: "SUCCEED", declineCode: null };
    case "direct":
      return ruleWaits
        ? { status: spec.status, declineCode: null, spec }
        : { status: "PROCESSING", declineCode: null, spec: SETTLING };
    case "payout":
      return ruleWaits
        ? { status: "PENDING", declineCode: null, spec: { ...spec, status: "PENDING" } }
        : { status: "PENDING", declineCode: null, spec: { ...SETTLING, status: "PENDING" } };
  }
}

/**
 * The method of an apmPayload, checked against the route's direction, its paymentType and the
 * currency (CONTRACT §3 "APM methods"): 400 naming `apmPayload.paymentMethod`,
 * `apmPayload.paymentType` or `currency`.
 */
export function checkMethod(
  payload: { paymentMethod: string; paymentType: string },
  direction: Direction,
  currency: string,
): ApmMethod {
  const method = methodOf(payload.paymentMethod);
  if (!method?.directions.includes(direction)) throw invalidField("apmPayload.paymentMethod");
  if (payload.paymentType !== method.paymentType) throw invalidField("apmPayload.paymentType");
  if (!takesCurrency(method, currency)) throw invalidField("currency");
  return method;
}

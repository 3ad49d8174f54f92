/**
 * The rules APM pay-ins and payouts share (docs/apm.md): the method's
 * checks, the first status from an outcome, and the payload as it may be kept. Pure functions.
 */

import type { JsonValue } from "../../http/wire.js";
import { CARD_NUMBER_KEY, CVV_KEY, maskNumber } from "../../platform/cards.js";
import { invalidField } from "../../platform/errors.js";
import type { OutcomeSpec } from "../../platform/fixtures.js";
import { DECLINE, SETTLE_AFTER } from "../transactions/lifecycle.js";
import type { ApmCreateResponse, ApmRequestPayloadEcho } from "./apm.wire.js";
import { type ApmMethod, type Direction, METHODS, methodOf, takesCurrency } from "./methods.js";

/**
 * The apmPayload as it may be kept and echoed (apmRequestPayload, docs/apm.md#the-hosted-payment-page):
 * the typed fields as sent or entered (bank account numbers and wallet ids are not card data, and a
 * test asserts what it sent), a wallet token without its data (nothing of a token sent beside a
 * decrypted PAN), a decrypted PAN as its card mask.
 */
export function echoPayload(payload: Record<string, unknown>): Record<string, JsonValue> {
  const out: Record<string, unknown> = {};
  // keys the schema does not name are kept as sent, but never card data: no CVV, no card number in clear
  for (const [key, value] of Object.entries(payload)) {
    if (CVV_KEY.test(key)) continue;
    out[key] = CARD_NUMBER_KEY.test(key) && typeof value === "string" && /^\d{12,19}$/.test(value) ? maskNumber(value) : value;
  }
  const token = payload.token as { paymentData?: unknown } | undefined;
  if (token !== undefined) out.token = token?.paymentData === undefined ? {} : { paymentData: { data: "[masked]" } };
  if (out.decrypted !== undefined) {
    const pan = (payload.decrypted as { applicationPrimaryAccountNumber?: unknown }).applicationPrimaryAccountNumber;
    out.decrypted = {
      applicationPrimaryAccountNumber: typeof pan === "string" ? maskNumber(pan) : null,
    };
  }
  // every value came from a parsed JSON body (or the page's form): JSON values
  return out as Record<string, JsonValue>;
}

/** The request's apmPayload as kept (echoPayload), with its method and type, which the request schema requires. */
export function echoRequestPayload(
  payload: { paymentMethod: string; paymentType: string } & Record<string, unknown>,
): ApmRequestPayloadEcho {
  return { ...echoPayload(payload), paymentMethod: payload.paymentMethod, paymentType: payload.paymentType };
}

/** PROCESSING (or PENDING) that settles SUCCEED a virtual minute later (docs/apm.md). */
export const SETTLING: OutcomeSpec = { status: "PROCESSING", completeAfter: SETTLE_AFTER, completeWith: "SUCCEED" };

export type Start = "shopper" | "wallet" | "direct" | "payout";

/**
 * The first status of an APM transaction from its outcome (docs/apm.md),
 * and the outcome whose deadline applies (none: waits for the page or the complete call).
 */
export function firstStatus(
  spec: OutcomeSpec,
  start: Start,
): { status: ApmCreateResponse["transactionStatus"]; declineCode: number | null; spec?: OutcomeSpec } {
  if (spec.status === "FAILED") return { status: "FAILED", declineCode: spec.declineCode ?? DECLINE.REJECTED_BY_ISSUER };
  const waitsIn = spec.status === "PROCESSING" || spec.status === "PENDING" ? spec.status : null;
  const ruleWaits = waitsIn !== null;
  switch (start) {
    case "shopper":
      return { status: "PENDING", declineCode: null, ...(ruleWaits ? { spec: { ...spec, status: "PENDING" } } : {}) };
    case "wallet":
      return ruleWaits ? { status: waitsIn, declineCode: null, spec } : { status: "SUCCEED", declineCode: null };
    case "direct":
      return ruleWaits
        ? { status: waitsIn, declineCode: null, spec }
        : { status: "PROCESSING", declineCode: null, spec: SETTLING };
    case "payout":
      return ruleWaits
        ? { status: "PENDING", declineCode: null, spec: { ...spec, status: "PENDING" } }
        : { status: "PENDING", declineCode: null, spec: { ...SETTLING, status: "PENDING" } };
  }
}

const ROUTE_NAME = { payin: "pay-ins", payout: "payouts" } as const;
const DIRECTION_NAME = { payin: "pay-in", payout: "payout" } as const;
const namesFor = (direction: Direction) =>
  METHODS.filter((m) => m.directions.includes(direction))
    .map((m) => m.paymentMethod)
    .join(", ");

/**
 * The method judgement of docs/apm.md: the method must be one of the catalog's for
 * the route's direction, `paymentType` the method's own and the currency one it takes, else 400
 * naming `apmPayload.paymentMethod`, `apmPayload.paymentType` or `currency`. It reads values that
 * may not be validated yet (the APM create routes judge the raw body before its fields, since
 * which fields count depends on the method): a value that is not a string is left to validation,
 * and then undefined is returned when there is no method name to judge.
 */
export function judgeMethod(
  payload: { paymentMethod?: unknown; paymentType?: unknown },
  direction: Direction,
  currency: unknown,
): ApmMethod | undefined {
  const name = payload.paymentMethod;
  if (typeof name !== "string") return undefined;
  const method = methodOf(name);
  if (!method) {
    throw invalidField("apmPayload.paymentMethod", `unknown method; ${ROUTE_NAME[direction]} take ${namesFor(direction)}`);
  }
  if (!method.directions.includes(direction)) {
    const other = direction === "payin" ? "payout" : "payin";
    throw invalidField(
      "apmPayload.paymentMethod",
      `${name} is a ${DIRECTION_NAME[other]} method; ${ROUTE_NAME[direction]} take ${namesFor(direction)}`,
    );
  }
  if (typeof payload.paymentType === "string" && payload.paymentType !== method.paymentType) {
    throw invalidField("apmPayload.paymentType", `${name} is paymentType ${method.paymentType}`);
  }
  if (typeof currency === "string" && !takesCurrency(method, currency)) {
    throw invalidField(
      "currency",
      `${name} takes ${Array.isArray(method.currencies) ? method.currencies.join(", ") : "any"} only`,
    );
  }
  return method;
}

/** The method of a validated apmPayload, judged as above (the service's own check; the route judged it first). */
export function checkMethod(
  payload: { paymentMethod: string; paymentType: string },
  direction: Direction,
  currency: string,
): ApmMethod {
  const method = judgeMethod(payload, direction, currency);
  if (!method) throw invalidField("apmPayload.paymentMethod");
  return method;
}

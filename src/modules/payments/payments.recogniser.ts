/**
 * The card payment body's fast path (docs/performance.md): a hand-written recogniser of a fully valid
 * body that returns exactly what CardPaymentRequestSchema's parse returns for it (the same keys in
 * the same order, unknown keys stripped, nothing added), and undefined for anything it is not sure
 * of, which zod then parses as before: every 400 and its reasons still come from zod, and zod stays
 * what /openapi.json documents (jsonBody's `recognise`, in front of the schema's parse).
 *
 * It only ever accepts less than zod: each check is the schema's own (the same patterns and
 * predicates, from wire.ts and schemas.ts), and whatever else is odd (a null, an absent required
 * key, a present key holding undefined, a `__proto__` metadata key, a number that is not a safe
 * integer) is left to zod. The fields are checked against the schema's shape when the recogniser
 * is made: a key added, removed, reordered or made optional there turns the fast path off rather
 * than let it disagree (payments.recogniser.test.ts fails on it too).
 */
import { z } from "@hono/zod-openapi";
import { isAbsoluteHttpUrl, MAX_URL_LENGTH, type Recogniser } from "../../http/schemas.js";
import { isCountry, isDate, isIpAddress, PATTERNS, THREE_DS_DEVICE_FIELDS } from "../../http/wire.js";
import { isCurrency } from "../../platform/money.js";

/** A value the recogniser is not sure of. */
const NO: unique symbol = Symbol("not recognised");
type Parse = (v: unknown) => unknown;
type Field = readonly [key: string, parse: Parse | ObjectSpec, optional: boolean];
interface ObjectSpec {
  readonly fields: readonly Field[];
}

const str: Parse = (v) => (typeof v === "string" ? v : NO);
const nonEmpty: Parse = (v) => (typeof v === "string" && v.length > 0 ? v : NO);
const matching =
  (re: RegExp): Parse =>
  (v) =>
    typeof v === "string" && re.test(v) ? v : NO;
const where =
  (ok: (v: string) => boolean): Parse =>
  (v) =>
    typeof v === "string" && ok(v) ? v : NO;
const bool: Parse = (v) => (typeof v === "boolean" ? v : NO);
const stringOrNumber: Parse = (v) => (typeof v === "string" || (typeof v === "number" && Number.isFinite(v)) ? v : NO);
const url = where((v) => v.length <= MAX_URL_LENGTH && isAbsoluteHttpUrl(v));
const EMAIL = PATTERNS.email;

/** MetadataSchema: a record of strings. */
const metadata: Parse = (v) => {
  if (v === null || typeof v !== "object" || Array.isArray(v) || Object.getPrototypeOf(v) !== Object.prototype) return NO;
  const out: Record<string, string> = {};
  for (const k of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[k];
    if (k === "__proto__" || typeof x !== "string") return NO;
    out[k] = x;
  }
  return out;
};

const CARD: ObjectSpec = {
  fields: [
    ["number", str, false],
    ["cardHolderName", str, true],
    ["expMonth", matching(PATTERNS.expMonth), false],
    ["expYear", matching(PATTERNS.expYear), false],
    ["cvv", matching(PATTERNS.cvv), false],
    ["requestThreeDSecure", bool, false],
  ],
};

const BILLING: ObjectSpec = {
  fields: [
    ["externalUserId", str, true],
    ["firstName", nonEmpty, false],
    ["lastName", nonEmpty, false],
    ["address1", nonEmpty, false],
    ["city", nonEmpty, false],
    ["state", nonEmpty, false],
    ["country", where(isCountry), false],
    ["postalCode", nonEmpty, false],
    ["phone", str, true],
    ["email", matching(EMAIL), false],
    ["dateOfBirth", where(isDate), false],
  ],
};

const ORDER: ObjectSpec = {
  fields: [
    ["date", str, true],
    ["orderId", str, true],
    ["title", str, true],
    ["siteId", str, true],
    ["name", str, true],
    ["domainName", str, true],
  ],
};

const DEVICE: ObjectSpec = {
  fields: [
    ["deviceId", str, true],
    ["fingerprintData", str, true],
    ["ip", where(isIpAddress), false],
    ["userAgent", nonEmpty, false],
    ["accept", str, true],
    ["acceptLanguage", str, true],
    ["deviceLanguage", str, true],
    ["colorDepth", stringOrNumber, true],
    ["screenHeight", stringOrNumber, true],
    ["screenWidth", stringOrNumber, true],
    ["deviceTimezone", stringOrNumber, true],
    ["javaEnabled", bool, true],
    ["javaScriptEnabled", bool, true],
  ],
};

const REQUEST: ObjectSpec = {
  fields: [
    ["requestId", (v) => (typeof v === "string" && v.length > 0 && v.length <= 255 ? v : NO), false],
    ["mid", nonEmpty, false],
    ["card", CARD, false],
    ["amount", matching(PATTERNS.amount), false],
    ["currency", where(isCurrency), false],
    ["lang", matching(PATTERNS.lang), false],
    ["callbackUrl", url, true],
    ["successRedirectUrl", url, true],
    ["failureRedirectUrl", url, true],
    ["billingDetails", BILLING, false],
    ["order", ORDER, false],
    ["device", DEVICE, false],
    ["kycVerified", bool, true],
    ["previousPaymentCount", (v) => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : NO), true],
    ["metadata", metadata, true],
  ],
};

/** zod's object parse of a body it accepts: the shape's keys in order, a present optional kept, the rest stripped. */
function parseObject(spec: ObjectSpec, v: unknown): Record<string, unknown> | typeof NO {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return NO;
  const input = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, parse, optional] of spec.fields) {
    const x = input[key];
    if (x === undefined) {
      // absent: fine when optional; a key present with undefined (never from JSON) is left to zod
      if (!optional || key in input) return NO;
      continue;
    }
    const y = typeof parse === "function" ? parse(x) : parseObject(parse, x);
    if (y === NO) return NO;
    out[key] = y;
  }
  return out;
}

const THREE_DS_URLS = ["callbackUrl", "successRedirectUrl", "failureRedirectUrl"] as const;

/** What the schema's superRefine asks of a 3DS request: every 3DS URL and device field present. */
function threeDsComplete(body: Record<string, unknown>): boolean {
  if ((body.card as { requestThreeDSecure: boolean }).requestThreeDSecure !== true) return true;
  const device = body.device as Record<string, unknown>;
  return THREE_DS_URLS.every((f) => body[f] !== undefined) && THREE_DS_DEVICE_FIELDS.every((f) => device[f] !== undefined);
}

/** Whether `spec` lists the keys of zod object `schema`'s shape, in order, with the same optionality. */
export function agreesWithShape(spec: ObjectSpec, schema: z.ZodType): boolean {
  if (!(schema instanceof z.ZodObject)) return false;
  const shape = schema.shape as Record<string, z.ZodType>;
  const keys = Object.keys(shape);
  if (keys.length !== spec.fields.length) return false;
  return spec.fields.every(([key, parse, optional], i) => {
    const field = shape[key];
    if (keys[i] !== key || !field) return false;
    if ((field._zod.optin === "optional") !== optional || (optional && field._zod.optout !== "optional")) return false;
    return typeof parse === "function" ? !(field instanceof z.ZodObject) : agreesWithShape(parse, field);
  });
}

/** The card payment body's recogniser for `schema` (CardPaymentRequestSchema); never recognises when they disagree. */
export function cardPaymentRecogniser<T extends z.ZodType>(schema: T): Recogniser<T> & { active: boolean } {
  const active = agreesWithShape(REQUEST, schema);
  const recognise = (input: unknown) => {
    if (!active) return undefined;
    const out = parseObject(REQUEST, input);
    return out === NO || !threeDsComplete(out) ? undefined : (out as z.output<T>);
  };
  return Object.assign(recognise, { active });
}

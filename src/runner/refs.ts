/**
 * `${...}` references of scenario steps (docs/run.md): `${name.path}` reads a saved body,
 * `${uuid}` is a fresh id, `${callbackUrl}` the run's webhook receiver, and `checksum: "${checksum}"`
 * in an APM body is Base64(HMAC-SHA256(merchantSecret, `accountId|amount|currency|requestId`)),
 * with `amount` exactly as sent (docs/apm.md#the-request-checksum).
 */
import { randomUUID } from "node:crypto";
import { hmacBase64 } from "../platform/crypto.js";

export class RefError extends Error {}

export interface RefScope {
  saved: ReadonlyMap<string, unknown>;
  callbackUrl: () => string;
}

/** The placeholder a body field holds for the runner to compute. */
export const CHECKSUM_REF = ["$", "{checksum}"].join("");

const WHOLE = /^\$\{([^}]*)\}$/;
const ANY = /\$\{([^}]*)\}/g;

/** `a.b[0].c` or `a.b.0.c` → ["a", "b", "0", "c"]. */
const segments = (ref: string) => ref.replace(/\[(\d+)\]/g, ".$1").split(".");

function lookup(ref: string, scope: RefScope): unknown {
  if (ref === "uuid") return randomUUID();
  if (ref === "callbackUrl") return scope.callbackUrl();
  const [name = "", ...path] = segments(ref);
  if (!scope.saved.has(name)) throw new RefError(`\${${ref}}: nothing saved as "${name}"`);
  let value: unknown = scope.saved.get(name);
  for (const key of path) {
    if (value === null || typeof value !== "object" || !(key in value)) {
      throw new RefError(`\${${ref}}: the body saved as "${name}" has no ${path.join(".")}`);
    }
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/**
 * Replaces every reference in `value` (deeply). A string that is one whole reference takes the
 * referenced value as it is (a number stays a number); inside a longer string it is written as text.
 * `${checksum}` is left for `fillChecksums`, which needs the rest of the body resolved first.
 */
export function resolveRefs(value: unknown, scope: RefScope): unknown {
  if (typeof value === "string") {
    const whole = WHOLE.exec(value);
    if (whole) return whole[1] === "checksum" ? value : lookup(whole[1] ?? "", scope);
    return value.replace(ANY, (m, ref: string) => {
      if (ref === "checksum") return m;
      const v = lookup(ref, scope);
      return typeof v === "string" ? v : JSON.stringify(v);
    });
  }
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, scope));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, scope)]));
  }
  return value;
}

/** The APM request checksum of a body (docs/apm.md#the-request-checksum): `accountId|amount|currency|requestId`. */
export function apmChecksum(body: Record<string, unknown>, merchantSecret: string): string {
  const field = (k: string) => {
    const v = body[k];
    if (v === undefined || v === null) throw new RefError(`\${checksum}: the body has no ${k}`);
    return typeof v === "string" ? v : JSON.stringify(v);
  };
  return hmacBase64(merchantSecret, ["accountId", "amount", "currency", "requestId"].map(field).join("|"));
}

/** Replaces each `"${checksum}"` value of an object (at any depth) by the checksum of that object. */
export function fillChecksums(value: unknown, merchantSecret: string): unknown {
  if (Array.isArray(value)) return value.map((v) => fillChecksums(v, merchantSecret));
  if (!value || typeof value !== "object") return value;
  const obj = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillChecksums(v, merchantSecret)]));
  for (const [k, v] of Object.entries(obj)) {
    if (v === CHECKSUM_REF) obj[k] = apmChecksum(obj, merchantSecret);
  }
  return obj;
}

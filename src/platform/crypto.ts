import * as nodeCrypto from "node:crypto";
import { createHash, createHmac, createSecretKey, type KeyObject, randomBytes, timingSafeEqual } from "node:crypto";

// HMAC keys as KeyObjects, made once per secret (a merchant has one or two): createHmac with a
// KeyObject skips importing the key on every call (~1 µs of a webhook's signing)
const hmacKeys = new Map<string, KeyObject>();
const hmacKey = (key: string): KeyObject => {
  let k = hmacKeys.get(key);
  if (!k) {
    if (hmacKeys.size >= 1000) hmacKeys.clear();
    k = createSecretKey(Buffer.from(key, "utf8"));
    hmacKeys.set(key, k);
  }
  return k;
};

/** Base64(HMAC-SHA256(key, message)): the X-Checksum of webhooks and the APM request checksum. */
export const hmacBase64 = (key: string, message: string): string =>
  createHmac("sha256", hmacKey(key)).update(message, "utf8").digest("base64");

// crypto.hash (Node >= 20.12) hashes in one call, without a Hash object: half the time of
// createHash for the ~1 KB idempotency form hashed on every create (docs/performance.md)
const oneShotHash = (nodeCrypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

export const sha256Hex = (data: string): string =>
  oneShotHash ? oneShotHash("sha256", data, "hex") : createHash("sha256").update(data, "utf8").digest("hex");

export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString("base64url");

/** Constant-time string comparison for secrets. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

/** JSON with object keys sorted, so two equal bodies hash the same whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

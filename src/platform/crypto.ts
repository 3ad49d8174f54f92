import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";

/** Base64(HMAC-SHA256(key, message)): the X-Checksum of webhooks and the APM request checksum. */
export const hmacBase64 = (key: string, message: string): string =>
  createHmac("sha256", key).update(message, "utf8").digest("base64");

export const sha256Hex = (data: string): string => createHash("sha256").update(data, "utf8").digest("hex");

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

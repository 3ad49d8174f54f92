/**
 * HS256 JSON Web Tokens (RFC 7519), signed and verified in one synchronous HMAC call each. The same
 * bytes as `hono/jwt`'s `sign` (header `{"alg":"HS256","typ":"JWT"}`, base64url without padding),
 * whose WebCrypto key import and signature each cost a thread-pool job: a sandbox signs with a
 * secret of its own, so every sandbox's first token paid its import (docs/performance.md "Sandboxes
 * at once"). Claims are the caller's to judge (the bearer tokens: docs/gateway.md#authentication).
 */
import { createHmac, timingSafeEqual } from "node:crypto";

const part = (value: unknown): string => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
const HEADER = part({ alg: "HS256", typ: "JWT" });
const BASE64URL = /^[A-Za-z0-9_-]*$/;

const hs256 = (secret: string, signed: string): Buffer => createHmac("sha256", secret).update(signed, "utf8").digest();

/** The token of these claims, signed with `secret`. */
export function signJwt(claims: Record<string, unknown>, secret: string): string {
  const signed = `${HEADER}.${part(claims)}`;
  return `${signed}.${hs256(secret, signed).toString("base64url")}`;
}

function decoded(text: string): unknown {
  if (!BASE64URL.test(text)) return undefined;
  try {
    return JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    return undefined;
  }
}

/**
 * The claims of `jwt` when it is an HS256 token whose signature `secret` made, else undefined: three
 * base64url parts, a header that says HS256 (a `typ`, if any, JWT; no `crit`), an object of claims.
 */
export function verifyJwt(jwt: string, secret: string): Record<string, unknown> | undefined {
  const parts = jwt.split(".");
  if (parts.length !== 3) return undefined;
  const [head = "", body = "", signature = ""] = parts;
  const header = decoded(head) as Record<string, unknown> | undefined;
  if (typeof header !== "object" || header === null || header.alg !== "HS256" || "crit" in header) return undefined;
  if ("typ" in header && (typeof header.typ !== "string" || header.typ.toLowerCase().replace(/^application\//, "") !== "jwt")) {
    return undefined;
  }
  if (!BASE64URL.test(signature)) return undefined;
  const given = Buffer.from(signature, "base64url");
  const expected = hs256(secret, `${head}.${body}`);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = decoded(body);
  return typeof claims === "object" && claims !== null && !Array.isArray(claims)
    ? (claims as Record<string, unknown>)
    : undefined;
}

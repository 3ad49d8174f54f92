/** Reading the bearer tokens of POST /api/v1/auth (docs/gateway.md#authentication) on the client side. */

/** The `exp` of a `Bearer <jwt>` token (or the bare JWT), in ms; 0 when unreadable (then it is fetched again each time). */
export function tokenExpiry(token: string): number {
  try {
    const payload = token.replace(/^Bearer\s+/i, "").split(".")[1] ?? "";
    const exp = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp?: unknown }).exp;
    return typeof exp === "number" ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}

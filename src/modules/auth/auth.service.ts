/**
 * Bearer tokens (docs/gateway.md#authentication): a JWT signed with `hono/jwt` (HS256) and
 * a per-instance secret kept in the database, valid 30 days of virtual time. A token follows its
 * merchant: its `sv` claim is an HMAC of the merchant's secret at issue time, so a token
 * issued before the secret changed (a scenario reloading the merchant) is refused.
 *
 * A copy of a sandbox (docs/snapshots.md) is a lineage: it signs with a secret of its own, so a token
 * it issues is refused by its source and by every other sandbox, and it still accepts the tokens its
 * source had issued up to the copy (signed by the source's secret, issued at or before that instant),
 * so a test can use the token it saved when it built the world.
 */
import { createHmac } from "node:crypto";
import { sign, verify } from "hono/jwt";
import type { Db } from "../../db/client.js";
import { setState, stateValue } from "../../db/state.js";
import type { Clock } from "../../platform/clock.js";
import { randomSecret, safeEqual } from "../../platform/crypto.js";
import { unauthorized } from "../../platform/errors.js";
import type { Merchant, MerchantService } from "../merchants/merchants.service.js";
import type { AuthResponse } from "./auth.wire.js";

export const TOKEN_TTL_SECONDS = 30 * 24 * 3600;
/** The 401 of a token the clock has moved past (docs/gateway.md#authentication): what happened, and what to do. */
const EXPIRED = `Access token expired (a token lasts ${TOKEN_TTL_SECONDS / 86_400} days of the sandbox's clock): take a new one with POST /api/v1/auth`;
const SECRET_KEY = "jwt_secret";
/** The secrets of the sandboxes this one was copied from, each with the last second (iat) it accepts. */
const INHERITED_KEY = "jwt_inherited";

interface Inherited {
  secret: string;
  untilSec: number;
}

function inheritedOf(db: Db): Inherited[] {
  const value = stateValue(db, INHERITED_KEY);
  return value ? (JSON.parse(value) as Inherited[]) : [];
}

/**
 * In a copy made at virtual `nowMs`: a new signing secret, the source's kept for the tokens it issued
 * until then (with those it had inherited itself).
 */
export function inheritSecrets(db: Db, nowMs: number): void {
  const secret = stateValue(db, SECRET_KEY);
  if (secret === undefined) return; // never opened: it issued nothing
  setState(db, INHERITED_KEY, JSON.stringify([...inheritedOf(db), { secret, untilSec: Math.floor(nowMs / 1000) }]));
  setState(db, SECRET_KEY, randomSecret());
}

const importKey = (secret: string) =>
  crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
const CACHE_LIMIT = 10_000;

export interface AuthDeps {
  db: Db;
  clock: Clock;
  merchants: MerchantService;
}

export class AuthService {
  private readonly secret: string;
  /** The secret imported once as a WebCrypto key: hono/jwt would re-import a string per call (~100 µs). */
  private key: Promise<CryptoKey> | undefined;
  /** The last token per merchant: the JWT is a pure function of (merchant, iat second), so reuse it. */
  private readonly lastIssued = new Map<string, { iat: number; sv: string; token: string }>();
  /** Verified tokens → subject and expiry, so a hot path verifies each token's signature once. */
  private readonly verified = new Map<string, { sub: string; sv: string; expMs: number; secret: string }>();
  /** The secrets inherited from the sandboxes this one was copied from (none for most). */
  private readonly inherited: Array<Inherited & { key?: Promise<CryptoKey> }>;

  constructor(private readonly deps: AuthDeps) {
    const secret = stateValue(deps.db, SECRET_KEY);
    if (secret !== undefined) {
      this.secret = secret;
    } else {
      this.secret = randomSecret();
      setState(deps.db, SECRET_KEY, this.secret);
    }
    this.inherited = inheritedOf(deps.db);
  }

  /** The secret-version claim: an HMAC (keyed by the instance secret) of the merchant's secret, never the secret itself. */
  private secretVersion(merchantSecret: string, secret = this.secret): string {
    return createHmac("sha256", secret).update(merchantSecret).digest("base64url").slice(0, 22);
  }

  private readonly svCache = new Map<string, string>();
  private secretVersionCached(merchantSecret: string, secret: string): string {
    if (secret !== this.secret) return this.secretVersion(merchantSecret, secret);
    let sv = this.svCache.get(merchantSecret);
    if (sv === undefined) {
      if (this.svCache.size >= CACHE_LIMIT) this.svCache.clear();
      sv = this.secretVersion(merchantSecret);
      this.svCache.set(merchantSecret, sv);
    }
    return sv;
  }

  private signingKey(): Promise<CryptoKey> {
    this.key ??= importKey(this.secret);
    return this.key;
  }

  /** The claims of a token signed by an inherited secret and issued before its copy, else undefined. */
  private async verifyInherited(jwt: string): Promise<{ payload: Record<string, unknown>; secret: string } | undefined> {
    for (const i of this.inherited) {
      i.key ??= importKey(i.secret);
      try {
        const payload = await verify(jwt, await i.key, { alg: "HS256", exp: false, nbf: false, iat: false });
        if (typeof payload.iat === "number" && payload.iat <= i.untilSec) return { payload, secret: i.secret };
      } catch {
        // not this one's
      }
    }
    return undefined;
  }

  /**
   * The merchant whose key and secret these are, else 401 `Invalid merchant credentials`
   * (docs/gateway.md#authentication). Token issue and the report's header credentials share it.
   */
  verifyCredentials(merchantKey: string | undefined, merchantSecret: string | undefined): Merchant {
    const m = merchantKey ? this.deps.merchants.byKey(merchantKey) : undefined;
    if (!m || merchantSecret === undefined || !safeEqual(m.merchantSecret, merchantSecret)) {
      throw unauthorized("Invalid merchant credentials");
    }
    return m;
  }

  /** Exchanges credentials for `{ merchantKey, token: "Bearer <jwt>" }`. */
  async issue(merchantKey: string, merchantSecret: string): Promise<AuthResponse> {
    const m = this.verifyCredentials(merchantKey, merchantSecret);
    const iat = Math.floor(this.deps.clock.nowMs() / 1000);
    const sv = this.secretVersion(m.merchantSecret);
    const last = this.lastIssued.get(m.merchantKey);
    if (last?.iat === iat && last.sv === sv) return { merchantKey: m.merchantKey, token: last.token };
    const jwt = await sign({ sub: m.merchantKey, sv, iat, exp: iat + TOKEN_TTL_SECONDS }, await this.signingKey(), "HS256");
    const token = `Bearer ${jwt}`;
    this.lastIssued.set(m.merchantKey, { iat, sv, token });
    return { merchantKey: m.merchantKey, token };
  }

  /**
   * Resolves an Authorization header to its merchant. Accepts `Bearer <jwt>` and the doubled
   * `Bearer Bearer <jwt>`. Expiry is judged by the virtual clock, not the wall clock.
   */
  async authenticate(header: string | undefined): Promise<Merchant> {
    if (!header) throw unauthorized("Missing Authorization header");
    const match = /^Bearer\s+(?:Bearer\s+)?(\S+)\s*$/i.exec(header);
    if (!match?.[1]) throw unauthorized("Malformed Authorization header: expected Bearer <token>");
    const jwt = match[1];
    let claims = this.verified.get(jwt);
    if (!claims) {
      let payload: Record<string, unknown>;
      let secret = this.secret;
      try {
        payload = await verify(jwt, await this.signingKey(), { alg: "HS256", exp: false, nbf: false, iat: false });
      } catch {
        const inherited = this.inherited.length > 0 ? await this.verifyInherited(jwt) : undefined;
        if (!inherited) throw unauthorized("Invalid access token");
        ({ payload, secret } = inherited);
      }
      if (typeof payload.sub !== "string" || typeof payload.exp !== "number" || typeof payload.sv !== "string") {
        throw unauthorized("Invalid access token");
      }
      claims = { sub: payload.sub, sv: payload.sv, expMs: payload.exp * 1000, secret };
      if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
      this.verified.set(jwt, claims);
    }
    if (this.deps.clock.nowMs() >= claims.expMs) throw unauthorized(EXPIRED);
    const merchant = this.deps.merchants.byKey(claims.sub);
    if (!merchant) throw unauthorized("Invalid access token");
    if (claims.sv !== this.secretVersionCached(merchant.merchantSecret, claims.secret)) {
      throw unauthorized("Access token revoked: the merchant's secret has changed");
    }
    return merchant;
  }
}

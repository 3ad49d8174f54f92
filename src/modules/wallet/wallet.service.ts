/**
 * Wallet-payment merchant sessions (docs/wallets.md, docs/apm.md): what a
 * wallet's JS API asks the merchant's server for before showing the payment sheet. The origin's
 * host must be one of the merchant's walletDomains; the session is made up locally.
 *
 * LIMITATIONS:
 * - no wallet provider is contacted: `validationUrl` is only checked to be an absolute http(s) URL;
 * - the session's identifiers are random and its signature is an HMAC with the merchant secret,
 *   not a wallet provider's.
 */
import { randomBytes } from "node:crypto";
import { ORIGIN_REASON } from "../../http/errors.js";
import type { Clock } from "../../platform/clock.js";
import { hmacBase64, sha256Hex } from "../../platform/crypto.js";
import { invalidField } from "../../platform/errors.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import type { MerchantSessionByAccountRequest, MerchantSessionRequest, MerchantSessionResponse } from "./wallet.wire.js";

const SESSION_TTL_MS = 60 * 60_000;

/** The host of an origin given as a URL or a bare host (`shop.example`, `localhost:3000`), lower-cased. */
export function hostOf(origin: string): string | undefined {
  const value = origin.trim();
  try {
    return new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`).hostname.toLowerCase() || undefined;
  } catch {
    return undefined;
  }
}

export class WalletService {
  constructor(private readonly clock: Clock) {}

  /** item 2: the seven fields; accountId must be the merchant's (400 `Invalid field: accountId`). */
  sessionByAccount(merchant: Merchant, body: MerchantSessionByAccountRequest): MerchantSessionResponse {
    const domainName = this.checkOrigin(merchant, body.origin);
    requireOwnMerchant(merchant, "accountId", body.accountId);
    return this.session(merchant, domainName);
  }

  /** The seven fields of a session for `domainName`. */
  private session(merchant: Merchant, domainName: string): MerchantSessionResponse {
    const now = this.clock.nowMs();
    const merchantSessionIdentifier = `SSH${randomBytes(16).toString("hex").toUpperCase()}`;
    const nonce = randomBytes(4).toString("hex");
    return {
      epochTimestamp: now,
      expiresAt: now + SESSION_TTL_MS,
      merchantSessionIdentifier,
      nonce,
      merchantIdentifier: sha256Hex(`merchant.${merchant.mid}`).toUpperCase(),
      domainName,
      displayName: merchant.name ?? merchant.mid,
    };
  }

  /** item 1 (merchant-session), with the signature over the session's identifiers. */
  sessionForIntent(merchant: Merchant, body: MerchantSessionRequest): MerchantSessionResponse {
    const s = this.session(merchant, this.checkOrigin(merchant, body.origin));
    const signature = hmacBase64(
      merchant.merchantSecret,
      `${s.merchantSessionIdentifier}|${s.nonce}|${s.epochTimestamp}|${body.intentToken}`,
    );
    return { ...s, signature };
  }

  /** The origin's host when it is one of the merchant's walletDomains, else 400 `Invalid field: origin`. */
  private checkOrigin(merchant: Merchant, origin: string): string {
    const host = hostOf(origin);
    if (!host) throw invalidField("origin", ORIGIN_REASON);
    if (!merchant.walletDomains.some((d) => d.toLowerCase() === host)) {
      const domains = merchant.walletDomains.join(", ") || "none";
      throw invalidField("origin", `its host ${host} is not one of the merchant's walletDomains (${domains})`);
    }
    return host;
  }
}

/**
 * Typed access to the data in fixtures/ (outcomes and tables are data, not code).
 * JSON is imported, so the build inlines it and the Docker image needs no fixtures folder.
 */
import apmMethods from "../../fixtures/apm-methods.json" with { type: "json" };
import binTable from "../../fixtures/bin-table.json" with { type: "json" };
import currencies from "../../fixtures/currencies.json" with { type: "json" };
import declineCodes from "../../fixtures/decline-codes.json" with { type: "json" };
import fxRates from "../../fixtures/fx-rates.json" with { type: "json" };
import testCards from "../../fixtures/test-cards.json" with { type: "json" };

export interface CurrencyInfo {
  numeric: string;
  digits: number;
  name: string;
}

export interface DeclineCode {
  code: number;
  name: string;
  message: string;
}

export interface BinRange {
  from: string;
  to: string;
  brand: string | null;
  type: string | null;
  issuingBank: string | null;
  country: string | null;
}

/**
 * What a request asks the outcome engine to decide (src/scenarios/outcome-engine.ts), and what a
 * create route's fault rules match on (src/http/route-use.ts): a payment, a subscription's first or
 * later charge, a payout, a refund.
 */
export type Flow = "payment" | "recurring_first" | "recurring_later" | "payout" | "refund";

/** What a card does in each flow; `status` is a transaction status, `declineCode` from decline-codes. */
export interface OutcomeSpec {
  status: "SUCCEED" | "FAILED" | "CUSTOMER_VERIFICATION" | "PROCESSING" | "PENDING";
  declineCode?: number;
  /** ISO 8601 duration after which a PROCESSING/PENDING outcome completes by itself. */
  completeAfter?: string;
  /** The status a completed PROCESSING/PENDING outcome ends in (default SUCCEED). */
  completeWith?: "SUCCEED" | "FAILED";
}

export interface TestCard {
  number: string;
  label: string;
  payment: OutcomeSpec;
  recurring: { first: OutcomeSpec; later: OutcomeSpec };
  payout: OutcomeSpec;
}

export const CURRENCIES: Readonly<Record<string, CurrencyInfo>> = currencies;
export const DECLINE_CODES: readonly DeclineCode[] = declineCodes;
export const FX_RATES: Readonly<Record<string, number>> = fxRates;
export const BIN_RANGES: readonly BinRange[] = binTable.ranges;
export const TEST_CARDS: readonly TestCard[] = testCards as TestCard[];
export const APM_METHODS = apmMethods;

export const declineName = (code: number): string | undefined => DECLINE_CODES.find((d) => d.code === code)?.name;

/**
 * A merchant's fields as fixtures and scenario files give them. The merchants table's row type
 * (src/db/schema/merchants.ts) is checked there to be exactly this shape: the storage layer imports
 * the platform's helpers, so the platform declares the shape rather than import it back.
 */
export interface MerchantFields {
  merchantKey: string;
  merchantSecret: string;
  mid: string;
  merchantId: number;
  accountId: number;
  processingCurrency: string | null;
  walletDomains: string[];
  name: string | null;
  webhookChaos: Record<string, number | string> | null;
  source: string;
}

/** The built-in merchant (docs/api.md#built-in-merchant): in every sandbox, at start and after a reset. */
export const BUILTIN_MERCHANT: MerchantFields = {
  merchantKey: "sandbox_merchant_key",
  merchantSecret: "sandbox_merchant_secret",
  mid: "sandbox-mid-001",
  merchantId: 1001,
  accountId: 2001,
  processingCurrency: null,
  walletDomains: ["localhost", "127.0.0.1"],
  name: null,
  webhookChaos: null,
  source: "builtin",
};

/**
 * A merchant's credentials and ids, as a request body needs them (what a new sandbox answers).
 * `paysandbox/testing` publishes the same shape in src/testing/types.ts, which has no imports.
 */
export type SandboxMerchant = Pick<MerchantFields, "merchantKey" | "merchantSecret" | "mid" | "merchantId" | "accountId">;

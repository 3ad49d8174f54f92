import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Vaulted cards (docs/tokens.md). No number, no CVV: BIN, last 4, length, expiry and the outcome profile. */
export const cardTokens = sqliteTable(
  "card_tokens",
  {
    token: text("token").primaryKey(),
    merchantKey: text("merchant_key").notNull(),
    requestId: text("request_id").notNull(),
    cardBin: text("card_bin").notNull(),
    cardLast4: text("card_last4").notNull(),
    /** How many digits the number has; null on tokens from before it was kept. */
    cardLength: integer("card_length"),
    expMonth: text("exp_month").notNull(),
    expYear: text("exp_year").notNull(),
    cardHolder: text("card_holder"),
    cardBrand: text("card_brand"),
    cardType: text("card_type"),
    issuingBank: text("issuing_bank"),
    cardCountry: text("card_country"),
    cardProfile: text("card_profile").notNull(),
    /** YYYY-MM-DD; the token is unusable from the start of the day after. */
    expirationDate: text("expiration_date").notNull(),
    billingDetails: text("billing_details", { mode: "json" }).$type<Record<string, unknown>>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("card_tokens_merchant_idx").on(t.merchantKey)],
);

/**
 * Recurring subscriptions (docs/subscriptions.md, docs/lifecycles.md#subscriptions). `nextChargeAt` is when the scheduler next looks
 * at the row: 00:00 UTC of nextChargeDate, or earlier, 00:00 UTC of the day after endDate, when the
 * subscription ends first; null when nothing is due (paused, canceled, or a charge is waiting).
 */
export const subscriptions = sqliteTable(
  "subscriptions",
  {
    id: text("id").primaryKey(),
    merchantKey: text("merchant_key").notNull(),
    requestId: text("request_id").notNull(),
    cardToken: text("card_token").notNull(),
    status: text("status").notNull(),
    amount: integer("amount").notNull(),
    currency: text("currency").notNull(),
    frequency: text("frequency").notNull(),
    interval: integer("interval").notNull(),
    startDate: text("start_date").notNull(),
    endDate: text("end_date"),
    /** Slot 0 of the charge schedule (startDate, moved to the next charge when the period changes). */
    anchorDate: text("anchor_date"),
    nextChargeDate: text("next_charge_date"),
    nextChargeAt: integer("next_charge_at"),
    failureCount: integer("failure_count").notNull().default(0),
    chargeCount: integer("charge_count").notNull().default(0),
    maxRetries: integer("max_retries").notNull(),
    skipFirstCharge: integer("skip_first_charge", { mode: "boolean" }).notNull().default(false),
    firstTransactionId: text("first_transaction_id"),
    callbackUrl: text("callback_url").notNull(),
    successRedirectUrl: text("success_redirect_url").notNull(),
    failureRedirectUrl: text("failure_redirect_url").notNull(),
    billingDetails: text("billing_details", { mode: "json" }).$type<Record<string, unknown>>(),
    orderData: text("order_data", { mode: "json" }).$type<Record<string, unknown>>(),
    device: text("device", { mode: "json" }).$type<Record<string, unknown>>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("subscriptions_due_idx").on(t.status, t.nextChargeAt), index("subscriptions_merchant_idx").on(t.merchantKey)],
);

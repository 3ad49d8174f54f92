import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Every money movement, one row each, whatever its kind (src/modules/transactions/kinds.ts):
 * card payments, one-click and subscription charges, refunds, card payouts, APM payments and
 * payouts. Card data is the BIN, last 4, length, expiry and holder only — never the number or the CVV.
 * `cardProfile` names the outcome profile the outcome engine resolved.
 * A refund's amounts are its own: `orderAmount` in the order currency, `processedAmount` its
 * share of the parent's processed amount (docs/cards.md#fx).
 */
export const transactions = sqliteTable(
  "transactions",
  {
    id: text("id").primaryKey(),
    merchantKey: text("merchant_key").notNull(),
    kind: text("kind").notNull(),
    requestId: text("request_id"),
    status: text("status").notNull(),
    declineCode: integer("decline_code"),
    cardBin: text("card_bin"),
    cardLast4: text("card_last4"),
    /** How many digits the number has (the mask shows one `*` per hidden digit); null on rows from before it was kept. */
    cardLength: integer("card_length"),
    cardExpMonth: text("card_exp_month"),
    cardExpYear: text("card_exp_year"),
    cardHolder: text("card_holder"),
    cardBrand: text("card_brand"),
    cardProfile: text("card_profile"),
    tokenId: text("token_id"),
    /** A refund's original transaction. */
    parentId: text("parent_id"),
    /** APM method (`apmType` of callbacks, e.g. UPI_QR); null for card kinds. */
    paymentMethod: text("payment_method"),
    declineSubReason: text("decline_sub_reason"),
    /** What one kind keeps and others do not (refund reason, payout userEmail, APM payload and response data). */
    details: text("details", { mode: "json" }).$type<Record<string, unknown>>(),
    subscriptionId: text("subscription_id"),
    orderCurrency: text("order_currency").notNull(),
    orderAmount: integer("order_amount").notNull(),
    processedCurrency: text("processed_currency").notNull(),
    processedAmount: integer("processed_amount").notNull(),
    /** Decimal string, processed per order unit; "1" when no conversion. */
    conversionRate: text("conversion_rate").notNull(),
    threeDs: integer("three_ds", { mode: "boolean" }).notNull().default(false),
    lang: text("lang"),
    callbackUrl: text("callback_url"),
    successRedirectUrl: text("success_redirect_url"),
    failureRedirectUrl: text("failure_redirect_url"),
    billingDetails: text("billing_details", { mode: "json" }).$type<Record<string, unknown>>(),
    orderData: text("order_data", { mode: "json" }).$type<Record<string, unknown>>(),
    device: text("device", { mode: "json" }).$type<Record<string, unknown>>(),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, string>>(),
    /** Virtual ms at which a waiting transaction resolves by itself (challenge timeout, completeAfter). */
    dueAt: integer("due_at"),
    dueStatus: text("due_status"),
    dueDeclineCode: integer("due_decline_code"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  // The partial indexes hold only the rows that have the column (docs/performance.md): a card payment that is
  // final at once writes to the table, its primary key and the two merchant indexes, nothing else.
  // A query `col = ?` or `col <= ?` implies `col IS NOT NULL`, so SQLite still uses them.
  (t) => [
    index("transactions_merchant_idx").on(t.merchantKey, t.createdAt),
    index("transactions_due_idx").on(t.dueAt).where(sql`${t.dueAt} IS NOT NULL`),
    index("transactions_subscription_idx").on(t.subscriptionId).where(sql`${t.subscriptionId} IS NOT NULL`),
    index("transactions_parent_idx").on(t.parentId).where(sql`${t.parentId} IS NOT NULL`),
    index("transactions_merchant_updated_idx").on(t.merchantKey, t.updatedAt),
  ],
);

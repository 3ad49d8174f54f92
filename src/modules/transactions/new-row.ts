/**
 * The one way a service makes a new transaction row (docs/lifecycles.md): every column has its
 * default here (empty, no card, no FX), and each kind's service gives only what is its own.
 * The row goes to the lifecycle's `create`, which writes it with the callback of its first status.
 */
import type { TransactionKind } from "./kinds.js";
import type { TransactionRow } from "./transactions.repo.js";

/** Every column at its default, in the table's column order (so every new row has the same shape). */
const DEFAULTS: TransactionRow = {
  id: "",
  merchantKey: "",
  kind: "",
  requestId: null,
  status: "",
  declineCode: null,
  cardBin: null,
  cardLast4: null,
  cardLength: null,
  cardExpMonth: null,
  cardExpYear: null,
  cardHolder: null,
  cardBrand: null,
  cardProfile: null,
  tokenId: null,
  parentId: null,
  paymentMethod: null,
  declineSubReason: null,
  details: null,
  subscriptionId: null,
  orderCurrency: "",
  orderAmount: 0,
  processedCurrency: "",
  processedAmount: 0,
  conversionRate: "1",
  threeDs: false,
  lang: null,
  callbackUrl: null,
  successRedirectUrl: null,
  failureRedirectUrl: null,
  billingDetails: null,
  orderData: null,
  device: null,
  metadata: null,
  dueAt: null,
  dueStatus: null,
  dueDeclineCode: null,
  createdAt: 0,
  updatedAt: 0,
};

/** What every new row says itself; any other column may be given, else it keeps its default. */
export type NewRowFields = Pick<TransactionRow, "id" | "merchantKey" | "status"> & {
  kind: TransactionKind;
} & Partial<Omit<TransactionRow, "createdAt" | "updatedAt">>;

/** A new row created (and last updated) at `now`: the defaults, then the caller's own columns. */
export function newTransactionRow(now: number, fields: NewRowFields): TransactionRow {
  return { ...DEFAULTS, ...fields, createdAt: now, updatedAt: now };
}

/** The result of a currency conversion (src/modules/payments/fx.ts), as the row keeps it. */
type Converted = Pick<TransactionRow, "processedCurrency" | "processedAmount" | "conversionRate">;

/**
 * The amount columns: the order amount (minor units) and currency as the merchant sent them, and
 * the processed ones after `fx`; without a conversion they are the order's, at the rate "1".
 */
export function amountColumns(
  orderAmount: number,
  orderCurrency: string,
  fx?: Converted | null,
): Pick<TransactionRow, "orderAmount" | "orderCurrency" | keyof Converted> {
  return {
    orderCurrency,
    orderAmount,
    processedCurrency: fx?.processedCurrency ?? orderCurrency,
    processedAmount: fx?.processedAmount ?? orderAmount,
    conversionRate: fx?.conversionRate ?? "1",
  };
}

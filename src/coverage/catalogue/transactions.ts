/**
 * The behaviours of transactions in the catalogue (docs/coverage.md#the-catalogue), derived from the
 * code's own tables: every kind (src/modules/transactions/kinds.ts) × every status its lifecycle
 * reaches (transitions.ts), FAILED once per decline code (fixtures/decline-codes.json); the 3DS
 * challenge's three endings (defined where it ends, lifecycle.ts); each APM method of the catalog (fixtures/apm-methods.json) completed
 * and declined in each of its directions; refunds in part, whole and of a converted payment.
 * Each cause is chosen from the same tables: the test card whose column gives the outcome, else the
 * flow that produces it (a 3DS answer, a page), else a scenario rule.
 */
import { METHODS } from "../../modules/apm/methods.js";
import { KIND_FACTS, TRANSACTION_KINDS, type TransactionKind } from "../../modules/transactions/kinds.js";
import { DECLINE, THREE_DS_ENDS } from "../../modules/transactions/lifecycle.js";
import { START, TRANSACTION_MOVES, type TransactionStatus } from "../../modules/transactions/transitions.js";
import { type Act, type Area, type Behaviour, cause } from "../../platform/behaviours.js";
import { DECLINE_CODES, type OutcomeSpec, TEST_CARDS, type TestCard } from "../../platform/fixtures.js";

/** How each kind is named in behaviour ids, where it sits, how one is made and which rule `operation` decides it. */
const KIND: Record<TransactionKind, { prefix: string; area: Area; make: Act[]; operation: "payment" | "refund" | "payout" }> = {
  card_payment: { prefix: "card.payment", area: "card", make: [{ act: "pay" }], operation: "payment" },
  card_charge: { prefix: "card.one-click", area: "tokens", make: [{ act: "tokenize" }, { act: "charge" }], operation: "payment" },
  subscription_charge: {
    prefix: "subscription.charge",
    area: "subscriptions",
    make: [{ act: "subscribe" }],
    operation: "payment",
  },
  refund: { prefix: "refund", area: "refunds", make: [{ act: "pay" }, { act: "refund", amount: "part" }], operation: "refund" },
  card_payout: { prefix: "payout.card", area: "payouts", make: [{ act: "payout" }], operation: "payout" },
  apm_payment: {
    prefix: "apm.payment",
    area: "apm",
    make: [{ act: "apm-pay", method: "SMART_E_WALLET", fields: true }],
    operation: "payment",
  },
  apm_payout: {
    prefix: "apm.payout",
    area: "payouts",
    make: [{ act: "apm-payout", method: "SMART_E_WALLET", fields: true }],
    operation: "payout",
  },
};

const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, "-");

/** `card.payment.succeed`, `refund.failed.decline-12`: the id of a transaction of `kind` reaching `status`. */
export function transactionBehaviour(kind: string, status: string, declineCode: number | null): string | undefined {
  const k = KIND[kind as TransactionKind];
  if (!k) return undefined;
  if (status === "FAILED") return declineCode === null ? undefined : `${k.prefix}.failed.decline-${declineCode}`;
  return `${k.prefix}.${slug(status)}`;
}

/** `apm.upi-qr.payin.succeed`: an APM method completed or declined in one direction. */
export const apmBehaviour = (method: string, kind: string, status: "SUCCEED" | "FAILED") =>
  `apm.${slug(method)}.${kind === "apm_payout" ? "payout" : "payin"}.${status === "SUCCEED" ? "succeed" : "failed"}`;

/** Refunds that succeeded, by what they refunded (docs/refunds-payouts.md#refunds). */
export const REFUND = { partial: "refund.partial", full: "refund.full", fx: "refund.fx" } as const;

/** A card was tokenized (docs/tokens.md): counted from the tokens the sandbox holds. */
export const TOKEN_CREATED = "token.created";

/** The test-card column a kind's create reads (src/scenarios/outcome-engine.ts). */
const column = (kind: TransactionKind, c: TestCard): OutcomeSpec | undefined =>
  kind === "card_payout"
    ? c.payout
    : kind === "subscription_charge"
      ? c.recurring.first
      : kind === "refund"
        ? undefined
        : c.payment;

/** The first test card whose column for `kind` answers `status` (and `declineCode`), with its number put into `make`. */
function byTestCard(kind: TransactionKind, status: string, declineCode?: number): Act[] | undefined {
  if (kind.startsWith("apm_") || kind === "refund") return undefined;
  let card = TEST_CARDS.find((c) => {
    const o = column(kind, c);
    return o?.status === status && (declineCode === undefined || o.declineCode === declineCode);
  });
  let later = false;
  if (!card && kind === "subscription_charge") {
    // a later charge of a subscription: the card's recurring.later column, a month on
    card = TEST_CARDS.find((c) => c.recurring.later.status === status && c.recurring.later.declineCode === declineCode);
    later = card !== undefined;
  }
  if (!card) return undefined;
  const number = card.number;
  const acts = KIND[kind].make.map((a): Act => {
    if (a.act === "pay" || a.act === "tokenize" || a.act === "subscribe" || a.act === "payout") return { ...a, card: number };
    return a;
  });
  return later ? [...acts, { act: "advance", by: "P1M" }] : acts;
}

/** A scenario rule of the kind's operation, then one of its creates. */
const byRule = (kind: TransactionKind, outcome: { status: "FAILED" | "PROCESSING" | "PENDING"; declineCode?: number }): Act[] => [
  { act: "rule", rule: { operation: KIND[kind].operation, ...outcome } },
  ...KIND[kind].make,
];

/** A card kind that waits in CUSTOMER_VERIFICATION first: the test card that always asks for 3DS. */
const challenged = (kind: TransactionKind): Act[] => byTestCard(kind, "CUSTOMER_VERIFICATION") ?? [];

/** The first status of a create (`[*] → status` in transitions.ts), when one call gets it. */
function created(kind: TransactionKind, status: TransactionStatus): Act[] | undefined {
  if (!TRANSACTION_MOVES[kind].some((m) => m.from === START && m.to === status && m.via === "create")) return undefined;
  const card = byTestCard(kind, status);
  if (card) return card;
  if (kind === "apm_payment") {
    if (status === "SUCCEED") return [{ act: "apm-pay", method: "APPLE_PAY", fields: true }];
    if (status === "PROCESSING") return KIND[kind].make;
    if (status === "PENDING") return [{ act: "apm-pay", method: "SMART_BANK_TRANSFER", fields: false }];
  }
  if ((kind === "refund" || kind.endsWith("payout")) && status === "PENDING") return KIND[kind].make;
  if (status === "SUCCEED" && !kind.startsWith("apm_")) return KIND[kind].make;
  if (status === "PROCESSING" || status === "PENDING") return byRule(kind, { status });
  return undefined;
}

/**
 * How a transaction of `kind` reaches `status`: by its create when one call gets there, else by the
 * first move of the table into it from a status a create reaches (a 3DS answer, a page, the clock
 * passing the minute, the refunds).
 */
function reach(kind: TransactionKind, status: TransactionStatus): Act[] {
  const direct = created(kind, status);
  if (direct) return direct;
  for (const m of TRANSACTION_MOVES[kind]) {
    if (m.to !== status || m.from === START) continue;
    const before = m.from === "CUSTOMER_VERIFICATION" ? challenged(kind) : created(kind, m.from);
    if (!before || before.length === 0) continue;
    switch (m.via) {
      case "3ds page":
        return [...before, { act: "3ds", outcome: status === "SUCCEED" ? "success" : "failure" }];
      case "shopper page":
        // a payout's fields missing go through the page too
        return kind === "apm_payout"
          ? [
              { act: "apm-payout", method: "SMART_BANK_TRANSFER_PAYOUT", fields: false },
              { act: "page", outcome: "success" },
            ]
          : [...before, { act: "page", outcome: status === "FAILED" ? "failure" : "success" }];
      case "refunds":
        return [...before, { act: "refund", amount: "all" }, { act: "advance", by: "PT1M" }];
      case "deadline":
        return [...before, { act: "advance", by: "PT1M" }];
      case "complete call":
        return [...before, { act: "complete", status: status === "FAILED" ? "FAILED" : "SUCCEED" }];
      case "create":
        break;
    }
  }
  throw new Error(`coverage: no way known to bring a ${kind} to ${status} (src/coverage/catalogue/transactions.ts)`);
}

/** How a transaction of `kind` is declined with `code`: a test card, the flow that gives it, else a rule. */
function declined(kind: TransactionKind, code: number): Act[] {
  const card = byTestCard(kind, "FAILED", code);
  if (card) return card;
  const card3ds = kind === "card_payment" || kind === "card_charge" || kind === "subscription_charge";
  if (card3ds && code === DECLINE.THREE_DS_AUTHENTICATION) return [...challenged(kind), { act: "3ds", outcome: "failure" }];
  if (card3ds && code === DECLINE.FORM_TIMEOUT) return [...challenged(kind), { act: "advance", by: "PT30M" }];
  if (kind === "apm_payment" && code === DECLINE.REJECTED_BY_ISSUER)
    return [...reach(kind, "PENDING"), { act: "page", outcome: "failure" }];
  return byRule(kind, { status: "FAILED", declineCode: code });
}

function kindBehaviours(kind: TransactionKind): Behaviour[] {
  const { area } = KIND[kind];
  const label = KIND_FACTS[kind].label;
  const statuses = [...new Set(TRANSACTION_MOVES[kind].map((m) => m.to))];
  const out: Behaviour[] = [];
  for (const status of statuses) {
    if (status === "FAILED") {
      for (const d of DECLINE_CODES) {
        out.push({
          id: transactionBehaviour(kind, status, d.code) as string,
          area,
          title: `${label} FAILED, declineCode ${d.code} (${d.name})`,
          cause: cause(...declined(kind, d.code)),
        });
      }
      continue;
    }
    out.push({
      id: transactionBehaviour(kind, status, null) as string,
      area,
      title: `${label} ${status}`,
      cause: cause(...reach(kind, status)),
    });
  }
  return out;
}

/** Every transaction behaviour of the catalogue. */
export function transactionBehaviours(): Behaviour[] {
  const out = TRANSACTION_KINDS.flatMap(kindBehaviours);
  // the 3DS challenge's ends are noted where it ends (src/modules/transactions/lifecycle.ts)
  out.push(THREE_DS_ENDS.passed, THREE_DS_ENDS.failed, THREE_DS_ENDS.timedOut);
  for (const m of METHODS) {
    for (const direction of m.directions) {
      const kind = direction === "payin" ? "apm_payment" : "apm_payout";
      const make: Act =
        direction === "payin"
          ? { act: "apm-pay", method: m.paymentMethod, fields: !m.alwaysHpp && m.actionType === "NONE" }
          : { act: "apm-payout", method: m.paymentMethod, fields: true };
      // a pay-in that waits for the shopper is paid on its page; the others settle a minute on
      const waits = direction === "payin" && (m.alwaysHpp || m.actionType !== "NONE");
      const wallet = m.paymentType === "MOBILE_WALLET";
      const settle: Act[] = waits
        ? [
            { act: "page", outcome: "success" },
            { act: "advance", by: "PT1M" },
          ]
        : wallet
          ? []
          : [{ act: "advance", by: "PT1M" }];
      const decline: Act[] = waits
        ? [make, { act: "page", outcome: "failure" }]
        : [
            {
              act: "rule",
              rule: {
                operation: direction === "payin" ? "payment" : "payout",
                status: "FAILED",
                declineCode: DECLINE.REJECTED_BY_ISSUER,
              },
            },
            make,
          ];
      const what = `${m.paymentMethod} ${direction === "payin" ? "pay-in" : "payout"}`;
      out.push(
        {
          id: apmBehaviour(m.paymentMethod, kind, "SUCCEED"),
          area: "apm",
          title: `${what} SUCCEED`,
          cause: cause(make, ...settle),
        },
        { id: apmBehaviour(m.paymentMethod, kind, "FAILED"), area: "apm", title: `${what} FAILED`, cause: cause(...decline) },
      );
    }
  }
  const refundDone: Act = { act: "advance", by: "PT1M" };
  out.push(
    {
      id: REFUND.partial,
      area: "refunds",
      title: "A partial refund succeeded",
      cause: cause({ act: "pay" }, { act: "refund", amount: "part" }, refundDone),
    },
    {
      id: REFUND.full,
      area: "refunds",
      title: "A refund of the whole order amount succeeded",
      cause: cause({ act: "pay" }, { act: "refund", amount: "all" }, refundDone),
    },
    {
      id: REFUND.fx,
      area: "refunds",
      title: "A refund of a payment converted to the merchant's currency succeeded (FX)",
      cause: cause({ act: "convert", processingCurrency: "EUR" }, { act: "pay" }, { act: "refund", amount: "part" }, refundDone),
    },
    { id: TOKEN_CREATED, area: "tokens", title: "A card tokenized", cause: cause({ act: "tokenize" }) },
  );
  return out;
}

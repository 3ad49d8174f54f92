/**
 * The shopper's side of an APM transaction (docs/apm.md#the-hosted-payment-page): what
 * the HPP and QR pages show, and their answer. The pages need no auth (a shopper's browser opens
 * them); a transaction is found by its unguessable id.
 *
 * LIMITATIONS:
 * - the failure button declines with declineCode 2; nothing else of a real provider's UI is simulated.
 */
import { type Db, inTransaction } from "../../db/client.js";
import { type Behaviour, cause, type Seen, UNSEEN } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { conflict, notFound } from "../../platform/errors.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { DECLINE, deadlineOf, type TransactionLifecycle, type TransactionRow } from "../transactions/lifecycle.js";
import { type ApmDetails, detailsOf } from "./apm.present.js";
import { echoPayload, SETTLING } from "./apm.rules.js";
import { fieldValueValid, METHODS } from "./methods.js";

export const APM_KINDS = ["apm_payment", "apm_payout"] as const;

/** The pages a shopper answers, by the actionType that shows them: a QR pay-in's page, else the hosted payment page. */
const PAGE_OF = (action: string) => (action === "QR" ? "qr" : "hpp");

/** The first pay-in method whose shopper answers the page `page` (the catalog, fixtures/apm-methods.json). */
const methodFor = (page: "hpp" | "qr") =>
  (METHODS.find((m) => m.directions.includes("payin") && m.actionType !== "NONE" && PAGE_OF(m.actionType) === page) ?? METHODS[0])
    ?.paymentMethod ?? "";

/** The shopper's answers on the pages (docs/coverage.md), noted where they are made: the events do not say who settled a pay-in. */
export const PAGE_BEHAVIOURS: readonly Behaviour[] = (["hpp", "qr"] as const).flatMap((page) =>
  (["success", "failure"] as const).map((outcome) => ({
    id: pageBehaviour(page, outcome),
    area: "apm" as const,
    title: `The shopper ${outcome === "success" ? "paid" : "declined"} on the ${page === "qr" ? "QR page" : "hosted payment page"}`,
    cause: cause({ act: "apm-pay", method: methodFor(page), fields: false }, { act: "page", outcome }),
  })),
);

function pageBehaviour(page: "hpp" | "qr", outcome: "success" | "failure"): string {
  return `apm.${page}.${outcome === "success" ? "paid" : "declined"}`;
}

export interface HostedPageDeps {
  db: Db;
  clock: Clock;
  lifecycle: TransactionLifecycle;
  /** Notes the shopper's answer for the coverage report (docs/coverage.md). */
  seen?: Seen;
}

/** A page the shopper answers: which one, for what, and the fields still missing. */
export interface ShopperPage {
  row: TransactionRow;
  merchant: Merchant;
  details: ApmDetails;
}

/** The HPP's refusal of a posted form: the page re-renders with it (HTTP 400), nothing changes. */
export class FormRejected extends Error {
  constructor(
    message: string,
    readonly invalid: string[],
  ) {
    super(message);
  }
}
export class HostedPageService {
  constructor(private readonly deps: HostedPageDeps) {}

  /** The transaction behind an HPP or QR page (no auth: the shopper's browser), with its merchant. Reads only. */
  page(id: string): ShopperPage {
    const row = this.apmRow(id);
    return { row, merchant: this.deps.lifecycle.merchantOf(row), details: detailsOf(row) };
  }

  /**
   * The shopper's answer on the HPP or QR page (docs/apm.md#the-hosted-payment-page):
   * `failure` → FAILED (declineCode 2); `success` needs every missing field, valid (else
   * FormRejected and nothing changes), stores them as entered (surrounding spaces trimmed; a wallet
   * token without its data, as for the request) and moves the
   * transaction PENDING → PROCESSING, which settles SUCCEED a virtual minute later. Each change
   * sends its callback. Only from PENDING with a page to answer, else 409.
   */
  answerPage(id: string, outcome: "success" | "failure", form: Record<string, unknown>): TransactionRow {
    return inTransaction(this.deps.db, () => {
      const row = this.apmRow(id);
      const details = detailsOf(row);
      const action = details.apmResponseData.actionType;
      if (row.status !== "PENDING" || (action !== "REDIRECT" && action !== "QR")) {
        throw conflict(`Transaction ${id} is ${row.status}, no longer waiting for the customer`);
      }
      const noted = () =>
        (this.deps.seen ?? UNSEEN)(pageBehaviour(PAGE_OF(action), outcome), { transactionId: id, at: this.deps.clock.nowMs() });
      if (outcome === "failure") {
        noted();
        return this.deps.lifecycle.settle(row, "FAILED", DECLINE.REJECTED_BY_ISSUER, "shopper page");
      }
      const collected: Record<string, unknown> = {};
      const invalid: string[] = [];
      for (const f of details.missing) {
        const v = form[f];
        if (typeof v !== "string" || !fieldValueValid(f, v.trim())) invalid.push(f);
        else collected[f] = f === "token" ? { paymentData: { data: v.trim() } } : v.trim();
      }
      if (invalid.length > 0) throw new FormRejected(`Please fill in: ${invalid.join(", ")}`, invalid);
      const next: ApmDetails = { ...details, apmPayload: { ...details.apmPayload, ...echoPayload(collected) }, missing: [] };
      this.deps.lifecycle.setDetails(id, next);
      noted();
      return this.deps.lifecycle.transition(
        { ...row, details: next },
        "PROCESSING",
        null,
        "shopper page",
        deadlineOf(SETTLING, this.deps.clock.nowMs()),
      );
    });
  }
  private apmRow(id: string): TransactionRow {
    const row = this.deps.lifecycle.get(id);
    if (!row || !(APM_KINDS as readonly string[]).includes(row.kind)) throw notFound(`Transaction not found: ${id}`);
    return row;
  }
}

/**
 * Recurring subscriptions: the commands (docs/subscriptions.md, docs/api.md#errors).
 * The billing run is subscriptions.billing.ts, the plan rules subscriptions.rules.ts, the wire
 * shapes subscriptions.present.ts.
 *
 * Lifecycle:
 * - create: skipFirstCharge → TRIALING (no charge, nextChargeDate = startDate); otherwise the first
 *   charge runs now on the card payment path (reported by a card callback). Declined → no
 *   subscription; approved → ACTIVE; waiting (3DS, PROCESSING) → PENDING until it settles, then
 *   ACTIVE, or deleted when it fails (the billing run's settled listener).
 * - endDate: no charge after it; once it has passed the subscription is CANCELED.
 *
 * Allowed PUT status moves (others → 400 `Invalid field: status`, nothing changes): the PUT rows of
 * SUBSCRIPTION_MOVES (subscriptions.rules.ts): ACTIVE → PAUSED|CANCELED; PAUSED → ACTIVE|CANCELED;
 * TRIALING → PAUSED|CANCELED; PENDING → CANCELED; a status to itself is a no-op; nothing leaves
 * CANCELED; nothing moves into PENDING or TRIALING. Every other move is asserted against the same table.
 */
import type { Db } from "../../db/client.js";
import { inTransaction } from "../../db/client.js";
import { type Seen, UNSEEN } from "../../platform/behaviours.js";
import type { Clock } from "../../platform/clock.js";
import { toDateString } from "../../platform/clock.js";
import { badRequest, invalidField } from "../../platform/errors.js";
import type { Ids } from "../../platform/ids.js";
import type { IdempotencyService, IdempotentResult } from "../idempotency/idempotency.service.js";
import type { Merchant } from "../merchants/merchants.service.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import type { PaymentService } from "../payments/payments.service.js";
import { billingOf, cardOfToken, type TokenService } from "../tokens/tokens.service.js";
import { WAITING } from "../transactions/lifecycle.js";
import { slotDate, slotOnOrAfter } from "./schedule.js";
import { subscriptionMove } from "./subscriptions.behaviours.js";
import { chargeSubscription } from "./subscriptions.billing.js";
import { createView, presentSubscription } from "./subscriptions.present.js";
import type { SubscriptionRow, SubscriptionsRepo } from "./subscriptions.repo.js";
import {
  ALLOWED_MOVES,
  anchorOf,
  applyPlan,
  assertSubscriptionMove,
  lookAtOf,
  NONE,
  periodOf,
  readPlan,
  type SubscriptionStatus,
} from "./subscriptions.rules.js";
import type {
  CreateSubscriptionRequest,
  CreateSubscriptionResponse,
  SubscriptionResponse,
  UpdateSubscriptionRequest,
} from "./subscriptions.wire.js";

export { ALLOWED_MOVES, SUBSCRIPTION_STATUSES, type SubscriptionStatus } from "./subscriptions.rules.js";

export interface SubscriptionDeps {
  db: Db;
  clock: Clock;
  ids: Ids;
  repo: SubscriptionsRepo;
  idempotency: IdempotencyService;
  payments: PaymentService;
  tokens: TokenService;
  /** SANDBOX_MAX_RETRIES: consecutive failures that pause a subscription (docs/gateway.md#how-faithful). */
  maxRetries: number;
  /** Notes each status move for the coverage report (docs/coverage.md): a move leaves no other trace. */
  seen?: Seen;
}

export class SubscriptionService {
  readonly repo: SubscriptionsRepo;

  constructor(private readonly deps: SubscriptionDeps) {
    this.repo = deps.repo;
  }

  /**
   * docs/subscriptions.md, idempotent (operation "subscription"). Validates the plan, resolves the token
   * and billing details (messages), then TRIALING, or the first charge now (kind
   * "subscription_charge", flow "recurring_first", reported by a card callback).
   */
  create(merchant: Merchant, input: CreateSubscriptionRequest): IdempotentResult<CreateSubscriptionResponse> {
    requireOwnMerchant(merchant, "mid", input.mid);
    return this.deps.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "subscription", requestId: input.requestId },
      input,
      () => {
        const now = this.deps.clock.nowMs();
        const today = toDateString(now);
        const plan = readPlan(input.plan, today);
        const token = this.deps.tokens.resolve(merchant, input.cardToken);
        const billingDetails = billingOf(input.billingDetails, token);
        const id = this.deps.ids.next("subscription");
        const skip = input.skipFirstCharge === true;
        const row: SubscriptionRow = {
          id,
          merchantKey: merchant.merchantKey,
          requestId: input.requestId,
          cardToken: token.token,
          status: skip ? "TRIALING" : "PENDING",
          amount: plan.amountMinor,
          currency: plan.currency,
          frequency: plan.frequency,
          interval: plan.interval,
          startDate: plan.startDate,
          endDate: plan.endDate,
          anchorDate: null,
          nextChargeDate: skip ? plan.startDate : slotDate(plan.startDate, plan, 1),
          nextChargeAt: null,
          failureCount: 0,
          chargeCount: 0,
          maxRetries: this.deps.maxRetries,
          skipFirstCharge: skip,
          firstTransactionId: null,
          callbackUrl: input.callbackUrl,
          successRedirectUrl: input.successRedirectUrl,
          failureRedirectUrl: input.failureRedirectUrl,
          billingDetails,
          orderData: input.order,
          device: input.device,
          metadata: input.metadata ?? null,
          createdAt: now,
          updatedAt: now,
        };
        if (skip) {
          assertSubscriptionMove(NONE, row.status, "create");
          row.nextChargeAt = lookAtOf(row);
          this.repo.insert(row);
          this.moved(row.id, NONE, row.status, "create");
          return createView(row, null, null);
        }
        const r = chargeSubscription(
          this.deps.payments,
          merchant,
          row,
          cardOfToken(token),
          "recurring_first",
          input.requestId,
          true,
        );
        if (r.transactionStatus !== "SUCCEED" && !WAITING.has(r.transactionStatus)) {
          return createView(null, r, null);
        }
        row.firstTransactionId = r.transactionId;
        if (r.transactionStatus === "SUCCEED") {
          row.status = "ACTIVE";
          row.chargeCount = 1;
          row.nextChargeAt = lookAtOf(row);
        }
        assertSubscriptionMove(NONE, row.status, "create");
        this.repo.insert(row);
        this.moved(row.id, NONE, row.status, "create");
        return createView(row, r, r.challengeUrl ?? null);
      },
    );
  }

  /** docs/subscriptions.md: unknown → 400 `Subscription not found: <id>`; another merchant's → its own message (docs/api.md#errors). */
  get(merchant: Merchant, id: string): SubscriptionResponse {
    return this.view(this.own(merchant, id));
  }

  /**
   * docs/subscriptions.md: plan fields and status. Plan changes apply from the next charge (a new period
   * or startDate re-anchors the schedule there); refused status moves → 400 `Invalid field:
   * status` and nothing changes. Resuming resets failureCount and charges next on the first slot
   * on or after today.
   */
  update(merchant: Merchant, id: string, input: UpdateSubscriptionRequest): SubscriptionResponse {
    const updated = inTransaction(this.deps.db, () => {
      const s = this.own(merchant, id);
      const today = toDateString(this.deps.clock.nowMs());
      const next: SubscriptionRow = { ...s };
      const target = input.status;
      if (target !== undefined && target !== s.status && !ALLOWED_MOVES[s.status as SubscriptionStatus].includes(target)) {
        throw invalidField("status");
      }
      if (input.plan) applyPlan(next, input.plan, today);
      const waiting = this.isWaiting(s);
      if (target !== undefined && target !== s.status) {
        next.status = target;
        if (target === "PAUSED" || target === "CANCELED") next.nextChargeDate = null;
        if (target === "ACTIVE") {
          next.failureCount = 0;
          next.nextChargeDate = slotOnOrAfter(anchorOf(next), periodOf(next), today);
        }
      }
      next.nextChargeAt = waiting ? null : lookAtOf(next);
      next.updatedAt = this.deps.clock.nowMs();
      const { id: _id, ...set } = next;
      this.repo.update(id, set);
      if (next.status !== s.status) this.moved(id, s.status, next.status, "PUT");
      return next;
    });
    return this.view(updated);
  }

  /** docs/subscriptions.md: CANCELED, no further charge; again on a canceled one is a no-op (204). */
  cancel(merchant: Merchant, id: string): void {
    inTransaction(this.deps.db, () => {
      const s = this.own(merchant, id);
      if (s.status === "CANCELED") return;
      assertSubscriptionMove(s.status, "CANCELED", "DELETE");
      this.repo.update(id, { status: "CANCELED", nextChargeDate: null, nextChargeAt: null, updatedAt: this.deps.clock.nowMs() });
      this.moved(id, s.status, "CANCELED", "DELETE");
    });
  }

  /** A status move made, noted for the coverage report (docs/coverage.md). */
  private moved(id: string, from: string, to: string, via: "create" | "PUT" | "DELETE"): void {
    (this.deps.seen ?? UNSEEN)(subscriptionMove(from, to, via), { subscriptionId: id, at: this.deps.clock.nowMs() });
  }

  /** A charge of this subscription is still waiting (3DS, PROCESSING): not due again until it settles. */
  private isWaiting(s: SubscriptionRow): boolean {
    const latest = this.repo.latestCharge(s.id);
    return latest !== undefined && WAITING.has(latest.status);
  }

  private own(merchant: Merchant, id: string): SubscriptionRow {
    const s = this.repo.byId(id);
    if (!s) throw badRequest(`Subscription not found: ${id}`);
    if (s.merchantKey !== merchant.merchantKey) throw badRequest("Subscription does not belong to merchant");
    return s;
  }

  private view(s: SubscriptionRow): SubscriptionResponse {
    const latest = this.repo.latestCharge(s.id);
    const challenge = latest?.status === "CUSTOMER_VERIFICATION" ? this.deps.payments.challengeUrl(latest.id) : null;
    return presentSubscription(s, latest, challenge);
  }
}

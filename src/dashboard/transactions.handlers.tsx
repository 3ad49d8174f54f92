/**
 * The transaction pages (docs/dashboard.md): the list at `/` with its filters, one transaction with
 * its webhooks and timeline, and the actions taken from there (complete it, replay a webhook).
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/env.js";
import { isTransactionKind, KIND_FACTS, TRANSACTION_KINDS } from "../modules/transactions/kinds.js";
import { invalidField, missingField, notFound } from "../platform/errors.js";
import { APM_METHODS, DECLINE_CODES } from "../platform/fixtures.js";
import { localPath } from "./access.js";
import type { TransactionRow } from "./dashboard.repo.js";
import { TRANSACTION_STATUSES } from "./format.js";
import { merchantLabel, type PageKit } from "./page-kit.js";
import { readForm } from "./page-response.js";
import { oneOf, pageRequest, param } from "./paging.js";
import { buildTimeline } from "./timeline.js";
import { TransactionPage } from "./transaction.view.js";
import { TransactionListPage } from "./transactions.view.js";

/** The pages a shopper would open for this transaction, while they are open (docs/dashboard.md). */
function shopperLinks(row: TransactionRow): Array<{ href: string; text: string }> {
  const id = encodeURIComponent(row.id);
  const links: Array<{ href: string; text: string }> = [];
  if (row.status === "CUSTOMER_VERIFICATION") links.push({ href: `/sandbox/3ds/${id}`, text: "Open the 3DS challenge page" });
  const facts = isTransactionKind(row.kind) ? KIND_FACTS[row.kind] : undefined;
  const payIn = facts?.paymentMethod === "apm" && facts.reportType === "PAYMENT";
  if (payIn && (row.status === "PENDING" || row.status === "NEW")) {
    const method = APM_METHODS.methods.find((m) => m.paymentMethod === row.paymentMethod);
    links.push(
      method?.actionType === "QR"
        ? { href: `/sandbox/qr/${id}`, text: "Open the QR page" }
        : { href: `/sandbox/hpp/${id}`, text: "Open the hosted payment page" },
    );
  }
  return links;
}

const CAN_COMPLETE = new Set(["PROCESSING", "PENDING"]);

export function registerTransactionPages(app: OpenAPIHono<AppEnv>, kit: PageKit, guard: MiddlewareHandler<AppEnv>) {
  app.get(
    "/",
    guard,
    kit.htmlPage("transactions", (c, f) => {
      const { ctx, repo } = kit.scope(c);
      const { rows, options } = kit.merchantOptions(c);
      const merchant = oneOf(
        c,
        "merchant",
        rows.map((m) => m.merchantKey),
      );
      const filter = {
        merchant,
        kind: oneOf(c, "kind", TRANSACTION_KINDS),
        status: oneOf(c, "status", TRANSACTION_STATUSES),
        subscription: param(c, "subscription"),
      };
      if (filter.subscription !== undefined && filter.subscription.length > 100) throw invalidField("subscription");
      const req = pageRequest(c);
      return (
        <TransactionListPage
          frame={f}
          filter={filter}
          limit={req.limit}
          merchants={options}
          page={repo.transactions(filter, req)}
          sandboxes={ctx.sandboxList?.()}
        />
      );
    }),
  );

  app.get(
    "/dashboard/transactions/:id",
    kit.htmlPage("transactions", (c, f) => {
      const { repo } = kit.scope(c);
      const id = c.req.param("id") ?? "";
      const row = repo.transaction(id);
      if (!row) throw notFound(`Transaction not found: ${id}`);
      const merchant = repo.merchants().find((m) => m.merchantKey === row.merchantKey);
      const deliveries = repo.deliveries(id);
      const attempts = repo.attempts(deliveries.map((d) => d.id));
      const children = repo.children(id);
      return (
        <TransactionPage
          frame={f}
          row={row}
          merchant={merchant ? merchantLabel(merchant) : row.merchantKey}
          linked={children}
          deliveries={deliveries.map((d) => ({ row: d, attempts: attempts.filter((a) => a.deliveryId === d.id) }))}
          timeline={buildTimeline(row, deliveries, children)}
          shopperLinks={shopperLinks(row)}
          canComplete={CAN_COMPLETE.has(row.status)}
        />
      );
    }),
  );

  app.post("/dashboard/webhooks/:id/replay", async (c) => {
    const id = c.req.param("id") ?? "";
    const form = await readForm(c);
    return kit.act(c, localPath(form.back), () => {
      const entry = kit.scope(c).actions.replay(id);
      return `Webhook ${id} replayed as ${entry.id} (sent now).`;
    });
  });

  app.post("/dashboard/transactions/:id/complete", async (c) => {
    const id = c.req.param("id") ?? "";
    const form = await readForm(c);
    return kit.act(c, localPath(form.back, `/dashboard/transactions/${encodeURIComponent(id)}`), () => {
      const status = form.status;
      if (!status) throw missingField("status");
      if (status !== "SUCCEED" && status !== "FAILED") throw invalidField("status");
      let declineCode: number | undefined;
      if (status === "FAILED" && form.declineCode) {
        declineCode = Number(form.declineCode);
        if (!DECLINE_CODES.some((d) => String(d.code) === form.declineCode)) throw invalidField("declineCode");
      }
      const r = kit.scope(c).actions.complete(id, { status, declineCode });
      return `Transaction ${r.transactionId} completed: ${r.transactionStatus}${r.declineCode !== null ? ` (declineCode ${r.declineCode})` : ""}.`;
    });
  });
}

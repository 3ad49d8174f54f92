import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { NO_STORE, pageFormHook, withTransactionId } from "../../http/page-errors.js";
import { openRoute } from "../../http/route-use.js";
import { renderMessage } from "../../http/shopper-page.js";
import { SandboxError } from "../../platform/errors.js";
import { formatAmount } from "../../platform/money.js";
import type { HostedPageService } from "./hosted-page.service.js";
import { FormRejected, type ShopperPage } from "./hosted-page.service.js";
import { renderShopperPage } from "./hpp.page.js";
import { hppAnswerRoute, hppPageRoute, qrAnswerRoute, qrPageRoute } from "./hpp.routes.js";
import { labelOf } from "./methods.js";

/** The view of a page: the fields still missing (with what was typed, when re-rendered), the QR when there is one. */
function view(p: ShopperPage, page: "hpp" | "qr", iframe: boolean, form?: Record<string, unknown>, rejected?: FormRejected) {
  const { row, merchant, details } = p;
  const qr = details.apmResponseData;
  return renderShopperPage({
    page,
    transactionId: row.id,
    merchant: merchant.name ?? merchant.mid,
    operation: row.kind === "apm_payout" ? "Payout" : "Payment",
    amount: formatAmount(row.orderAmount, row.orderCurrency),
    currency: row.orderCurrency,
    method: row.paymentMethod ?? "",
    fields: details.missing.map((name) => ({
      name,
      label: labelOf(name),
      value: typeof form?.[name] === "string" ? (form[name] as string) : "",
      invalid: rejected?.invalid.includes(name) ?? false,
    })),
    qr:
      typeof qr.qrData === "string" && typeof qr.qrDeepLink === "string"
        ? { png: qr.qrData, deepLink: qr.qrDeepLink }
        : undefined,
    error: rejected?.message,
    iframe,
  });
}

const waiting = (p: ShopperPage) =>
  p.row.status === "PENDING" &&
  (p.details.apmResponseData.actionType === "REDIRECT" || p.details.apmResponseData.actionType === "QR");

/** The hosted payment page and the QR page, and their answers (docs/apm.md#the-hosted-payment-page); no auth. */
export function registerShopperPages(app: OpenAPIHono<AppEnv>, of: Scoped<{ hostedPages: HostedPageService }>) {
  const failurePage = (err: unknown) => {
    if (!(err instanceof SandboxError) || (err.status !== 404 && err.status !== 409)) throw err;
    const title = err.status === 404 ? "Unknown transaction" : "Page closed";
    return { body: renderMessage(title, err.message), status: err.status };
  };

  for (const [page, pageRoute, answerRoute] of [
    ["hpp", hppPageRoute, hppAnswerRoute],
    ["qr", qrPageRoute, qrAnswerRoute],
  ] as const) {
    app.openapi(pageRoute, (c) => {
      const { id } = c.req.valid("param");
      try {
        const p = of(c).hostedPages.page(id);
        if (!waiting(p)) {
          const message = `Transaction ${id} is ${p.row.status}; this page is closed.`;
          return c.html(renderMessage("Page closed", message), 409, NO_STORE);
        }
        return c.html(view(p, page, c.req.valid("query").mode === "iframe"), 200, NO_STORE);
      } catch (err) {
        const f = failurePage(err);
        return c.html(f.body, f.status, NO_STORE);
      }
    });

    openRoute(
      app,
      answerRoute,
      (c) => {
        const { id } = c.req.valid("param");
        const form = c.req.valid("form") as Record<string, unknown>;
        const iframe = c.req.valid("query").mode === "iframe";
        try {
          const row = of(c).hostedPages.answerPage(id, form.outcome === "success" ? "success" : "failure", form);
          const target = row.status === "FAILED" ? row.failureRedirectUrl : row.successRedirectUrl;
          if (target) return c.redirect(withTransactionId(target, row.id), 303);
          const message = `Transaction ${row.id} is ${row.status}. You can close this window.`;
          return c.html(renderMessage("Thank you", message), 200, NO_STORE);
        } catch (err) {
          if (err instanceof FormRejected)
            return c.html(view(of(c).hostedPages.page(id), page, iframe, form, err), 400, NO_STORE);
          const f = failurePage(err);
          return c.html(f.body, f.status, NO_STORE);
        }
      },
      pageFormHook((pageId, c) => of(c).hostedPages.page(pageId)),
    );
  }
}

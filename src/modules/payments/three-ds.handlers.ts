import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { NO_STORE, pageFormHook, withTransactionId } from "../../http/page-errors.js";
import { openRoute } from "../../http/route-use.js";
import { renderMessage } from "../../http/shopper-page.js";
import { SandboxError } from "../../platform/errors.js";
import { formatAmount } from "../../platform/money.js";
import { cardMask } from "./card.js";
import type { PaymentService } from "./payments.service.js";
import { renderChallenge } from "./three-ds.page.js";
import { challengeAnswerRoute, challengePageRoute } from "./three-ds.routes.js";

/** The 3DS challenge page and its answer (docs/cards.md#3ds-challenge); no auth. */
export function registerThreeDs(app: OpenAPIHono<AppEnv>, of: Scoped<{ payments: PaymentService }>) {
  const failurePage = (err: unknown) => {
    if (!(err instanceof SandboxError) || (err.status !== 404 && err.status !== 409)) throw err;
    const title = err.status === 404 ? "Unknown transaction" : "Challenge closed";
    return { body: renderMessage(title, err.message), status: err.status };
  };

  app.openapi(challengePageRoute, (c) => {
    const { id } = c.req.valid("param");
    try {
      const { row, merchant } = of(c).payments.challenge(id);
      if (row.status !== "CUSTOMER_VERIFICATION") {
        const message = `Transaction ${id} is ${row.status}; this challenge is closed.`;
        return c.html(renderMessage("Challenge closed", message), 409, NO_STORE);
      }
      const page = renderChallenge({
        transactionId: row.id,
        merchant: merchant.mid,
        amount: formatAmount(row.orderAmount, row.orderCurrency),
        currency: row.orderCurrency,
        cardMask: cardMask(row.cardBin ?? "", row.cardLast4 ?? "", row.cardLength),
        iframe: c.req.valid("query").mode === "iframe",
      });
      return c.html(page, 200, NO_STORE);
    } catch (err) {
      const f = failurePage(err);
      return c.html(f.body, f.status, NO_STORE);
    }
  });

  openRoute(
    app,
    challengeAnswerRoute,
    (c) => {
      const { id } = c.req.valid("param");
      const { outcome } = c.req.valid("form");
      try {
        const row = of(c).payments.answerChallenge(id, outcome);
        const target = row.status === "SUCCEED" ? row.successRedirectUrl : row.failureRedirectUrl;
        if (target) return c.redirect(withTransactionId(target, row.id), 303);
        const message = `Transaction ${row.id} is ${row.status}. You can close this window.`;
        return c.html(renderMessage("Verification finished", message), 200, NO_STORE);
      } catch (err) {
        const f = failurePage(err);
        return c.html(f.body, f.status, NO_STORE);
      }
    },
    pageFormHook((id, c) => of(c).payments.challenge(id)),
  );
}

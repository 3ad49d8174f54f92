import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppContext } from "../../context.js";
import type { AppEnv } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { parseAmount } from "../../platform/money.js";
import { requireOwnMerchant } from "../merchants/merchants.service.js";
import { readCard } from "./card.js";
import { type CardPaymentResponse, cardInfoRoute, cardStatusRoute, createCardPaymentRoute } from "./payments.routes.js";
import { presentResponse } from "./present.js";

/** Card payment create, status and info (interface §4.3, §4.4; CONTRACT §3), under /api/v1 and /v1. */
export function registerPayments(app: OpenAPIHono<AppEnv>, ctx: AppContext) {
  gatewayRoute(app, createCardPaymentRoute, (c) => {
    const merchant = c.get("merchant");
    const body = c.req.valid("json");
    requireOwnMerchant(merchant, "mid", body.mid);
    const amountMinor = parseAmount(body.amount, body.currency);
    const card = readCard(body.card, ctx.outcomes, ctx.clock);
    const result = ctx.idempotency.run(
      { merchantKey: merchant.merchantKey, operation: "card_payment", requestId: body.requestId },
      body,
      () =>
        presentResponse(
          ctx.payments.authorize({
            merchant,
            kind: "card_payment",
            requestId: body.requestId,
            card,
            amountMinor,
            currency: body.currency,
            flow: "payment",
            threeDSRequested: body.card.requestThreeDSecure,
            callbackUrl: body.callbackUrl ?? null,
            successRedirectUrl: body.successRedirectUrl ?? null,
            failureRedirectUrl: body.failureRedirectUrl ?? null,
            lang: body.lang,
            billingDetails: body.billingDetails,
            order: body.order,
            device: body.device,
            metadata: body.metadata ?? null,
            cardCallback: true,
          }),
        ),
    );
    if (!result.replayed) ctx.work.poke();
    return c.json(result.body as CardPaymentResponse, 200);
  });

  gatewayRoute(app, cardStatusRoute, (c) => {
    const row = ctx.payments.getOwn(c.get("merchant"), c.req.valid("param").id);
    return c.json({ transactionId: row.id, transactionStatus: row.status }, 200);
  });

  gatewayRoute(app, cardInfoRoute, (c) => {
    const row = ctx.payments.getOwn(c.get("merchant"), c.req.valid("param").id);
    return c.json(ctx.payments.present(row), 200);
  });
}

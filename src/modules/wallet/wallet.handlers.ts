import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv, Scoped } from "../../http/env.js";
import { gatewayRoute } from "../../http/gateway.js";
import { merchantSessionByAccountRoute, merchantSessionRoute } from "./wallet.routes.js";
import type { WalletService } from "./wallet.service.js";

/** Wallet merchant sessions (docs/wallets.md, docs/apm.md), under /api/v1 and /v1. */
export function registerWallet(app: OpenAPIHono<AppEnv>, of: Scoped<{ wallet: WalletService }>) {
  gatewayRoute(app, merchantSessionRoute, (c) =>
    c.json(of(c).wallet.sessionForIntent(c.get("merchant"), c.req.valid("json")), 200),
  );
  gatewayRoute(app, merchantSessionByAccountRoute, (c) =>
    c.json(of(c).wallet.sessionByAccount(c.get("merchant"), c.req.valid("json")), 200),
  );
}

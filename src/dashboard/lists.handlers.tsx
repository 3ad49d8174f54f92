/** The subscription and merchant pages (docs/dashboard.md): read only. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../http/env.js";
import { SUBSCRIPTION_STATUSES } from "./format.js";
import { MerchantsPage } from "./merchants.view.js";
import type { PageKit } from "./page-kit.js";
import { oneOf, pageRequest } from "./paging.js";
import { SubscriptionListPage } from "./subscriptions.view.js";

export function registerListPages(app: OpenAPIHono<AppEnv>, kit: PageKit) {
  app.get(
    "/dashboard/subscriptions",
    kit.htmlPage("subscriptions", (c, f) => {
      const { rows, options } = kit.merchantOptions(c);
      const filter = {
        merchant: oneOf(
          c,
          "merchant",
          rows.map((m) => m.merchantKey),
        ),
        status: oneOf(c, "status", SUBSCRIPTION_STATUSES),
      };
      const req = pageRequest(c);
      return (
        <SubscriptionListPage
          frame={f}
          filter={filter}
          limit={req.limit}
          merchants={options}
          page={kit.scope(c).repo.subscriptions(filter, req)}
        />
      );
    }),
  );

  app.get(
    "/dashboard/merchants",
    kit.htmlPage("merchants", (c, f) => {
      const { repo } = kit.scope(c);
      return <MerchantsPage frame={f} merchants={repo.merchants()} scenarios={repo.scenarios()} />;
    }),
  );
}

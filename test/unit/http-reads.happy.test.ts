/**
 * The one shape of the gateway's reads by id: src/http/reads.ts makes the status
 * and info routes of card payments, refunds, card payouts and APM, and the benches share one
 * percentile (bench/lib.ts).
 */
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { describe, expect, it } from "vitest";
import { percentile } from "../../bench/lib.js";
import type { Merchant } from "../../src/db/schema/index.js";
import type { AppEnv } from "../../src/http/env.js";
import { errorHandler } from "../../src/http/errors.js";
import { gatewayRead, readRoute } from "../../src/http/reads.js";
import { apmInfoRoute, apmPayoutInfoRoute, apmStatusRoute } from "../../src/modules/apm/apm.routes.js";
import { cardInfoRoute, cardStatusRoute } from "../../src/modules/payments/payments.routes.js";
import { payoutInfoRoute, payoutStatusRoute } from "../../src/modules/payouts/payouts.routes.js";
import { refundInfoRoute, refundStatusRoute } from "../../src/modules/refunds/refunds.routes.js";
import { notFound } from "../../src/platform/errors.js";

describe("readRoute and gatewayRead", () => {
  const Thing = z.object({ id: z.string(), status: z.string() });
  const route = readRoute({
    path: "/things/status/{id}",
    operationId: "getThingStatus",
    tags: ["Things"],
    summary: "A thing",
    example: "th_1",
    schema: Thing,
    description: "Status",
  });

  it("a GET by id with the id's example, answering the schema, 401 and 404", () => {
    expect(route.method).toBe("get");
    expect(route.path).toBe("/things/status/{id}");
    expect(Object.keys(route.responses)).toEqual(["200", "401", "404"]);
    expect(route.request.params.shape.id.safeParse("").success).toBe(false);
  });

  it("mounts under /api/v1 and /v1 and answers what `read` returns; the service's 404 goes through", async () => {
    const app = new OpenAPIHono<AppEnv>();
    app.use(async (c, next) => {
      c.set("merchant", { merchantKey: "m" } as Merchant);
      await next();
    });
    gatewayRead(app, route, (merchant, id) => {
      if (id === "nope") throw notFound(`Thing not found: ${id}`);
      return { id, status: `of ${merchant.merchantKey}` };
    });
    app.onError(errorHandler(() => ({ error() {} }) as never));
    for (const prefix of ["/api/v1", "/v1"]) {
      const res = await app.request(`${prefix}/things/status/th_9`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ id: "th_9", status: "of m" });
    }
    const missing = await app.request("/api/v1/things/status/nope");
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ errorMessage: "Thing not found: nope" });
  });

  it.each([
    cardStatusRoute,
    cardInfoRoute,
    refundStatusRoute,
    refundInfoRoute,
    payoutStatusRoute,
    payoutInfoRoute,
    apmStatusRoute,
    apmInfoRoute,
    apmPayoutInfoRoute,
  ])("$path is a read route", (r) => {
    expect(r.method).toBe("get");
    expect(r.path).toMatch(/\/(status|info)\/\{id\}$/);
    expect(Object.keys(r.responses)).toEqual(["200", "401", "404"]);
    expect(Object.keys(r.request.params.shape)).toEqual(["id"]);
  });
});

describe("bench percentile (nearest rank)", () => {
  it("the smallest sample with at least p% at or below it", () => {
    const xs = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(xs, 50)).toBe(5);
    expect(percentile(xs, 90)).toBe(9);
    expect(percentile(xs, 99)).toBe(10);
    expect(percentile(xs, 100)).toBe(10);
    expect(percentile(xs, 1)).toBe(1);
    expect(percentile([], 50)).toBe(0);
    expect(xs[0]).toBe(5); // not sorted in place
  });
});

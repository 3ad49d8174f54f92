/**
 * The one shape of the gateway's reads by id (docs/api.md: status and info of card payments,
 * refunds, card payouts, APM pay-ins and payouts; docs/cards.md, docs/refunds-payouts.md#card-payouts, docs/refunds-payouts.md#refunds, docs/apm.md#payouts): `GET
 * {path}` with an `{id}` path parameter, the merchant's bearer token, 200 with the record, 401, and
 * 404 for an unknown id or another merchant's. Each area names its path, schema and words; the
 * route and its handler come from here.
 */
import { createRoute, type OpenAPIHono, type z } from "@hono/zod-openapi";
import type { Merchant } from "../db/schema/index.js";
import type { AppEnv, RouteContext } from "./env.js";
import { gatewayRoute } from "./gateway.js";
import { errorResponses, jsonResponse, pathParam } from "./schemas.js";

export interface ReadRouteConfig<S extends z.ZodType> {
  /** Under /api/v1 and /v1, ending in `{id}`: `/payments/card/status/{id}`. */
  path: `${string}/{id}`;
  /** docs/api.md#openapi-and-sdks: `getCardPaymentStatus`. */
  operationId: string;
  tags: string[];
  summary: string;
  /** The id's example in the document: `tx_4fQ...`. */
  example: string;
  /** The 200 answer, and its description. */
  schema: S;
  description: string;
}

/** The route definition (it feeds /openapi.json) of a read by id. */
export function readRoute<S extends z.ZodType>(cfg: ReadRouteConfig<S>) {
  return createRoute({
    method: "get",
    operationId: cfg.operationId,
    path: cfg.path,
    tags: cfg.tags,
    summary: cfg.summary,
    request: { params: pathParam("id", cfg.example) },
    responses: { 200: jsonResponse(cfg.schema, cfg.description), ...errorResponses(401, 404) },
  });
}

/**
 * Mounts a read under both gateway prefixes: `read(merchant, id, c)` answers the record (the service
 * throws the 404), which goes out as JSON with 200.
 */
export function gatewayRead<S extends z.ZodType>(
  app: OpenAPIHono<AppEnv>,
  route: ReturnType<typeof readRoute<S>>,
  read: (merchant: Merchant, id: string, c: RouteContext) => z.infer<S>,
) {
  // the record's type is the schema's (checked at `read`); the generic route's response type is not resolvable here
  gatewayRoute(app, route, (c) => c.json(read(c.get("merchant"), c.req.valid("param").id, c), 200) as never);
}

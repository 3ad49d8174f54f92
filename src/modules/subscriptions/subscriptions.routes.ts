import { createRoute } from "@hono/zod-openapi";
import { errorResponses, jsonBody, jsonResponse, pathParam } from "../../http/schemas.js";
import {
  CreateSubscriptionRequestSchema,
  CreateSubscriptionResponseSchema,
  SubscriptionSchema,
  UpdateSubscriptionRequestSchema,
} from "./subscriptions.wire.js";

const tags = ["Subscriptions"];

const IdParam = pathParam("subscriptionId", "sub_4fQ...");

const PATH = "/payments/card/recurring";

export const createSubscriptionRoute = createRoute({
  operationId: "createSubscription",
  method: "post",
  path: PATH,
  tags,
  summary: "Create a subscription: first charge now (or TRIALING with skipFirstCharge)",
  request: { body: jsonBody(CreateSubscriptionRequestSchema) },
  responses: {
    200: jsonResponse(
      CreateSubscriptionResponseSchema,
      "Created, or the declined first charge; the same for a replayed requestId",
    ),
    ...errorResponses(400, 401, 409, 413),
  },
});

export const getSubscriptionRoute = createRoute({
  operationId: "getSubscription",
  method: "get",
  path: `${PATH}/{subscriptionId}`,
  tags,
  summary: "Retrieve a subscription",
  request: { params: IdParam },
  responses: { 200: jsonResponse(SubscriptionSchema, "The subscription"), ...errorResponses(400, 401) },
});

export const updateSubscriptionRoute = createRoute({
  operationId: "updateSubscription",
  method: "put",
  path: `${PATH}/{subscriptionId}`,
  tags,
  summary: "Update plan fields (from the next charge) or move the status (pause, resume, cancel)",
  request: { params: IdParam, body: jsonBody(UpdateSubscriptionRequestSchema) },
  responses: { 200: jsonResponse(SubscriptionSchema, "The subscription after the change"), ...errorResponses(400, 401, 413) },
});

export const cancelSubscriptionRoute = createRoute({
  operationId: "cancelSubscription",
  method: "delete",
  path: `${PATH}/{subscriptionId}`,
  tags,
  summary: "Cancel a subscription: no further charge",
  request: { params: IdParam },
  responses: { 204: { description: "Canceled (also when it already was)" }, ...errorResponses(400, 401) },
});

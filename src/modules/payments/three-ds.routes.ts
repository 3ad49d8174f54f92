import { createRoute, z } from "@hono/zod-openapi";
import { pathParam } from "../../http/schemas.js";
import { oneOf } from "../../http/wire.js";

const tags = ["Sandbox pages"];

const Params = pathParam("id");
const Query = z.object({
  mode: z.string().optional().openapi({ description: "`iframe`: the form breaks out to the top window", example: "iframe" }),
});
export const ChallengeAnswerSchema = z.object({ outcome: oneOf(["success", "failure"]) }).openapi("ChallengeAnswer");

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

export const challengePageRoute = createRoute({
  operationId: "getThreeDsPage",
  method: "get",
  path: "/sandbox/3ds/{id}",
  tags,
  security: [],
  summary: "The 3DS challenge page (HTML, no auth): one form, buttons outcome=success / outcome=failure",
  request: { params: Params, query: Query },
  responses: {
    200: html("The challenge"),
    404: html("Unknown transaction"),
    409: html("The transaction no longer waits for the customer"),
  },
});

export const challengeAnswerRoute = createRoute({
  operationId: "submitThreeDsPage",
  method: "post",
  path: "/sandbox/3ds/{id}",
  tags,
  security: [],
  summary: "Answer the challenge: success → SUCCEED, failure → FAILED (declineCode 3); 303 to the merchant's redirect URL",
  request: {
    params: Params,
    query: Query,
    body: { required: true, content: { "application/x-www-form-urlencoded": { schema: ChallengeAnswerSchema } } },
  },
  responses: {
    200: html("Done (the merchant gave no redirect URL)"),
    303: { description: "To successRedirectUrl / failureRedirectUrl with transactionId added to the query" },
    400: html("No outcome, or not success / failure: a page saying so; nothing changed"),
    404: html("Unknown transaction"),
    409: html("Already answered, or no longer waiting for the customer"),
  },
});

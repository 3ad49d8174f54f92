import { createRoute, z } from "@hono/zod-openapi";
import { pathParam } from "../../http/schemas.js";
import { oneOf } from "../../http/wire.js";

const tags = ["Sandbox pages"];

const Params = pathParam("id");
const Query = z.object({
  mode: z.string().optional().openapi({ description: "`iframe`: the form breaks out to the top window", example: "iframe" }),
});

/** The posted form: the outcome button plus the fields the page asked for (named as in apmPayload). */
export const ShopperAnswerSchema = z
  .object({ outcome: oneOf(["success", "failure"]) })
  .catchall(z.string())
  .openapi("ShopperPageAnswer", { description: "outcome, and with success every field the page asks for" });

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });

/** The pages' names in operationIds (docs/api.md#operation-ids): `getHostedPaymentPage`, `submitQrPage`. */
const OPERATION_NAMES = { hpp: "HostedPaymentPage", qr: "QrPage" } as const;

const pageRoute = (page: "hpp" | "qr", summary: string) =>
  createRoute({
    method: "get",
    operationId: `get${OPERATION_NAMES[page]}`,
    path: `/sandbox/${page}/{id}`,
    tags,
    security: [],
    summary,
    request: { params: Params, query: Query },
    responses: {
      200: html("The page"),
      404: html("Unknown transaction"),
      409: html("The transaction no longer waits for the customer"),
    },
  });

const answerRoute = (page: "hpp" | "qr") =>
  createRoute({
    method: "post",
    operationId: `submit${OPERATION_NAMES[page]}`,
    path: `/sandbox/${page}/{id}`,
    tags,
    security: [],
    summary: "Answer the page: success → PROCESSING, then SUCCEED by webhook; failure → FAILED; 303 to the merchant's URL",
    request: {
      params: Params,
      query: Query,
      body: { required: true, content: { "application/x-www-form-urlencoded": { schema: ShopperAnswerSchema } } },
    },
    responses: {
      200: html("Done (the merchant gave no redirect URL)"),
      303: { description: "To successRedirectUrl / failureRedirectUrl with transactionId added to the query" },
      400: html("A field is missing or invalid: the form again, with a message; nothing changed"),
      404: html("Unknown transaction"),
      409: html("Already answered, or no longer waiting for the customer"),
    },
  });

export const hppPageRoute = pageRoute(
  "hpp",
  "The hosted payment page (HTML, no auth): the apmPayload fields still missing, two outcome buttons",
);
export const hppAnswerRoute = answerRoute("hpp");
export const qrPageRoute = pageRoute(
  "qr",
  "The QR page of a UPI_QR / PIX_QR pay-in (HTML, no auth): the QR image, its deep link, two outcome buttons",
);
export const qrAnswerRoute = answerRoute("qr");

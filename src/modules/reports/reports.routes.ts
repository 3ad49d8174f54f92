import { createRoute, z } from "@hono/zod-openapi";
import { jsonBody } from "../../http/schemas.js";
import { ReportErrorSchema, ReportRequestSchema } from "./reports.wire.js";

const reportError = (description: string) => ({ description, content: { "application/json": { schema: ReportErrorSchema } } });

const binary = z.string().openapi({ format: "binary" });

export const reportRoute = createRoute({
  operationId: "createReport",
  method: "post",
  path: "/report-generator/s2s",
  tags: ["Reports"],
  security: [{ MerchantKey: [], MerchantSecret: [] }],
  summary: "Transaction report as CSV or an Excel workbook, streamed",
  description:
    "One row per transaction of the merchant, oldest first: transactionId, type, paymentMethod, apmType, requestId, " +
    "parentTransactionId, subscriptionId, status, declineCode, orderAmount, orderCurrency, processedAmount, " +
    "processedCurrency, conversionRate, cardMask, createdAt, lastModifiedAt. Credentials go in the x-merchant-key and " +
    "x-merchant-secret headers (no bearer token).",
  request: { body: jsonBody(ReportRequestSchema) },
  responses: {
    200: {
      description: 'The report, with `Content-Disposition: attachment; filename="report-<dateFrom>-<dateTo>.csv|.xlsx"`',
      content: {
        "text/csv": { schema: binary },
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": { schema: binary },
      },
    },
    400: reportError("A missing or invalid field (`Missing required field: dateFrom`), or dateTo before dateFrom"),
    401: reportError("Missing or wrong x-merchant-key / x-merchant-secret"),
    413: reportError("Body over 1 MiB"),
  },
});

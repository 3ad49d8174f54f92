/**
 * The report request and error bodies on the wire, and the report date syntax: the schemas that
 * reports.routes.ts validates and documents with, and the types inferred from them, for the
 * service.
 */
import { z } from "@hono/zod-openapi";

const DATE = /^(\d{4})-(\d{2})-(\d{2})(?: (\d{2}):(\d{2}):(\d{2}))?$/;

/**
 * `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS` (docs/report.md) as UTC parts, or undefined when the
 * text is neither or names no real instant (2026-02-30, 24:00:00).
 */
export function parseReportDate(text: string): { ms: number; hasTime: boolean } | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const ms = Date.UTC(y, mo - 1, d, h, mi, sec);
  // Date.UTC rolls over (Feb 30 → Mar 2, 24:00 → the next day): a real instant reads back the same
  const back = new Date(ms);
  const real =
    y >= 1 &&
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === sec;
  return real ? { ms, hasTime: m[4] !== undefined } : undefined;
}

const reportDate = (example: string) =>
  z
    .string()
    .refine((v) => parseReportDate(v) !== undefined)
    .openapi({
      example,
      pattern: "^\\d{4}-\\d{2}-\\d{2}( \\d{2}:\\d{2}:\\d{2})?$",
      description: "UTC. `YYYY-MM-DD` or `YYYY-MM-DD HH:MM:SS`; both ends included",
    });

export const ReportRequestSchema = z
  .object({
    dateFrom: reportDate("2026-01-01"),
    dateTo: reportDate("2026-01-31").openapi({
      description: "UTC, included. A bare date means the end of that day (23:59:59.999)",
    }),
    dateSource: z
      .enum(["createdDate", "lastModifiedDate"])
      .default("createdDate")
      .openapi({ description: "Which time the range applies to, and the order of the rows (oldest first)" }),
    format: z.enum(["CSV", "XLS"]).default("CSV").openapi({ description: "CSV (text/csv) or XLS (an .xlsx workbook)" }),
  })
  .openapi("ReportRequest");

export type ReportRequest = z.infer<typeof ReportRequestSchema>;

/** The report's own error body (docs/report.md, docs/api.md#errors): `{ error }`, not `{ errorMessage }`. */
export const ReportErrorSchema = z
  .object({ error: z.string().openapi({ example: "Invalid merchant credentials" }) })
  .openapi("ReportError");

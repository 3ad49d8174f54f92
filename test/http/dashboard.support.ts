/**
 * Shared by the dashboard suites: reading the server-rendered pages (ids, pager links, the flash)
 * and seeding rows of kinds whose modules are not built yet, the way their services will store them.
 */
import { transactions } from "../../src/db/schema/index.js";
import { BUILTIN, type TestSandbox } from "../helpers/harness.js";
import { cardPaymentBody } from "./payments.body.js";

/** The Origin a browser sends for the harness's public URL (http://sandbox.test). */
export const ORIGIN = "http://sandbox.test";

const unescapeHtml = (s: string) =>
  s
    .replace(/&amp;/g, "&")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'");

/** Transaction ids of the list table, in page order (the row's own link, not its parent's). */
export function listedIds(html: string): string[] {
  const body = html.slice(
    html.indexOf('<table id="transactions"'),
    html.indexOf("</table>", html.indexOf('<table id="transactions"')),
  );
  return [...body.matchAll(/<tr><td class="time">.*?<a class="mono" href="\/dashboard\/transactions\/([^"]+)"/g)].map((m) =>
    decodeURIComponent(m[1] ?? ""),
  );
}

/** The href of the pager link with this rel (next = older, prev = newer), or undefined. */
export function pagerLink(html: string, rel: "next" | "prev" | "first"): string | undefined {
  const m = new RegExp(`<a href="([^"]+)" rel="${rel}"`).exec(html);
  return m ? unescapeHtml(m[1] ?? "") : undefined;
}

/** The flash message's text, or undefined. */
export function flashOf(html: string): { kind: string; text: string } | undefined {
  const m = /<p class="flash (ok|error)"[^>]*>([^<]*)<\/p>/.exec(html);
  return m ? { kind: m[1] ?? "", text: unescapeHtml(m[2] ?? "") } : undefined;
}

/** `name=value` pairs of a response's Set-Cookie headers, for the next request's Cookie header. */
export function cookiesOf(res: { headers: Record<string, unknown> }): string {
  const set = (res.headers["set-cookie"] as string[] | undefined) ?? [];
  return set.map((c) => c.split(";")[0]).join("; ");
}

/** A card payment of the built-in merchant through the gateway API; its transactionId. */
export async function pay(s: TestSandbox, over: Parameters<typeof cardPaymentBody>[0] = {}): Promise<string> {
  const res = await s.http
    .post("/api/v1/payments/card")
    .set("authorization", await s.token())
    .send(cardPaymentBody(over));
  if (res.status !== 200) throw new Error(`payment failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.transactionId as string;
}

/** A row of any kind as its module stores it (refunds, payouts and APM rows are built elsewhere). */
export function seedTransaction(s: TestSandbox, row: Partial<typeof transactions.$inferInsert> & { id: string; kind: string }) {
  const now = s.clock.nowMs();
  s.ctx.db
    .insert(transactions)
    .values({
      merchantKey: BUILTIN.merchantKey,
      status: "SUCCEED",
      orderCurrency: "USD",
      orderAmount: 500,
      processedCurrency: "USD",
      processedAmount: 500,
      conversionRate: "1",
      createdAt: now,
      updatedAt: now,
      ...row,
    })
    .run();
}

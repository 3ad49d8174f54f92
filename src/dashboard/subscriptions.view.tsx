/**
 * Subscriptions with their next charge (docs/dashboard.md), newest first, filters by merchant and
 * status, paged by keyset; each links to its charges in the transaction list.
 */
import type { FC } from "hono/jsx";
import type { Page, SubscriptionFilter, SubscriptionRow } from "./dashboard.repo.js";
import { money, SUBSCRIPTION_STATUSES } from "./format.js";
import { Badge, type Frame, Layout, Time } from "./layout.js";
import { DEFAULT_PAGE_SIZE, listHref, type MerchantOption, Pager } from "./transactions.view.js";

export interface SubscriptionListView {
  frame: Frame;
  filter: SubscriptionFilter;
  limit: number;
  merchants: MerchantOption[];
  page: Page<SubscriptionRow & { rowid: number }>;
}

export const SubscriptionListPage: FC<SubscriptionListView> = (v) => {
  const labels = new Map(v.merchants.map((m) => [m.key, m.label]));
  const params = { merchant: v.filter.merchant, status: v.filter.status };
  const filtered = Object.values(params).some((x) => x !== undefined);
  return (
    <Layout title="Subscriptions" frame={v.frame}>
      <h1>Subscriptions</h1>
      <form class="filters" method="get" action="/dashboard/subscriptions" aria-label="Filter subscriptions">
        <div>
          <label for="s-merchant">Merchant</label>
          <select id="s-merchant" name="merchant">
            <option value="">All merchants</option>
            {v.merchants.map((m) => (
              <option value={m.key} selected={m.key === v.filter.merchant}>
                {m.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="s-status">Status</label>
          <select id="s-status" name="status">
            <option value="">All statuses</option>
            {SUBSCRIPTION_STATUSES.map((s) => (
              <option value={s} selected={s === v.filter.status}>
                {s}
              </option>
            ))}
          </select>
        </div>
        {v.limit !== DEFAULT_PAGE_SIZE ? <input type="hidden" name="limit" value={String(v.limit)} /> : null}
        <button type="submit" class="primary">
          Filter
        </button>
        {filtered ? (
          <a class="button" href="/dashboard/subscriptions">
            Clear filters
          </a>
        ) : null}
      </form>
      <table id="subscriptions">
        <caption>Newest first, {v.limit} a page</caption>
        <thead>
          <tr>
            <th scope="col">Created (UTC)</th>
            <th scope="col">Subscription</th>
            <th scope="col">Merchant</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">
              Amount
            </th>
            <th scope="col">Every</th>
            <th scope="col">Next charge</th>
            <th scope="col" class="num">
              Charges
            </th>
            <th scope="col" class="num">
              Failures in a row
            </th>
          </tr>
        </thead>
        <tbody>
          {v.page.rows.length === 0 ? (
            <tr>
              <td colspan={9} class="empty">
                No subscriptions{filtered ? " match these filters" : " yet"}.
              </td>
            </tr>
          ) : (
            v.page.rows.map((s) => (
              <tr>
                <td class="time">
                  <Time ms={s.createdAt} />
                </td>
                <td>
                  <a class="mono" href={`/?subscription=${encodeURIComponent(s.id)}`} title="Its charges">
                    {s.id}
                  </a>
                </td>
                <td>{labels.get(s.merchantKey) ?? s.merchantKey}</td>
                <td>
                  <Badge status={s.status} />
                </td>
                <td class="num">{money(s.amount, s.currency)}</td>
                <td>
                  {s.interval === 1 ? s.frequency : `${s.interval} × ${s.frequency}`}
                  {s.endDate ? <div class="small muted">until {s.endDate}</div> : null}
                </td>
                <td class="time">{s.nextChargeDate ?? "—"}</td>
                <td class="num">{s.chargeCount}</td>
                <td class="num">
                  {s.failureCount} / {s.maxRetries}
                </td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <Pager page={v.page} href={(pos) => listHref("/dashboard/subscriptions", params, v.limit, pos)} />
    </Layout>
  );
};

/**
 * The transaction list (docs/dashboard.md): every kind in one table, newest first, filters by merchant,
 * kind and status (and subscription, from the subscriptions page), paged by keyset.
 */
import type { FC } from "hono/jsx";
import { KIND_FACTS, TRANSACTION_KINDS } from "../modules/transactions/kinds.js";
import { type Cursor, encodeCursor, type Page, type TransactionFilter, type TransactionListRow } from "./dashboard.repo.js";
import { cardOf, declineText, kindLabel, money, TRANSACTION_STATUSES } from "./format.js";
import { Badge, type Frame, Layout, type Live, Time } from "./layout.js";
import { SandboxesPanel, type SandboxListItem } from "./sandboxes.view.js";

export const DEFAULT_PAGE_SIZE = 50;

export interface MerchantOption {
  key: string;
  label: string;
}

export interface TransactionListView {
  frame: Frame;
  filter: TransactionFilter;
  limit: number;
  merchants: MerchantOption[];
  page: Page<TransactionListRow>;
  /** The server's other sandboxes (the root's dashboard only). */
  sandboxes?: readonly SandboxListItem[] | undefined;
}

/** The list's URL for a filter and a position: only the parameters in use. */
export function listHref(
  base: string,
  params: Record<string, string | undefined>,
  limit: number,
  pos?: { before?: Cursor | undefined; after?: Cursor | undefined },
): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, v);
  if (limit !== DEFAULT_PAGE_SIZE) q.set("limit", String(limit));
  if (pos?.before) q.set("before", encodeCursor(pos.before));
  if (pos?.after) q.set("after", encodeCursor(pos.after));
  const s = q.toString();
  return s ? `${base}?${s}` : base;
}

/** Newer / Newest / Older links; a missing direction is plain text, not a dead link. */
export const Pager: FC<{ page: Page<unknown>; href: (pos: { before?: Cursor; after?: Cursor } | undefined) => string }> = ({
  page,
  href,
}) => (
  <nav class="pager" aria-label="Pages">
    {page.newer ? (
      <>
        <a href={href(undefined)} rel="first">
          « Newest
        </a>
        <a href={href({ after: page.newer })} rel="prev">
          ‹ Newer
        </a>
      </>
    ) : (
      <span class="disabled">‹ Newer</span>
    )}
    {page.older ? (
      <a href={href({ before: page.older })} rel="next">
        Older ›
      </a>
    ) : (
      <span class="disabled">Older ›</span>
    )}
  </nav>
);

const Select: FC<{
  id: string;
  label: string;
  name: string;
  value: string | undefined;
  all: string;
  options: MerchantOption[];
}> = (p) => (
  <div>
    <label for={p.id}>{p.label}</label>
    <select id={p.id} name={p.name}>
      <option value="">{p.all}</option>
      {p.options.map((o) => (
        <option value={o.key} selected={o.key === p.value}>
          {o.label}
        </option>
      ))}
    </select>
  </div>
);

export const KIND_OPTIONS: MerchantOption[] = TRANSACTION_KINDS.map((k) => ({ key: k, label: KIND_FACTS[k].label }));
const STATUS_OPTIONS: MerchantOption[] = TRANSACTION_STATUSES.map((s) => ({ key: s, label: s }));

/** One row of the list (also used for a payment's refunds on its own page). */
export const TransactionRowView: FC<{ r: TransactionListRow; merchant: string }> = ({ r, merchant }) => (
  <tr>
    <td class="time">
      <Time ms={r.createdAt} />
    </td>
    <td>
      <a class="mono" href={`/dashboard/transactions/${encodeURIComponent(r.id)}`}>
        {r.id}
      </a>
    </td>
    <td>
      {kindLabel(r.kind)}
      {r.parentId ? (
        <div class="small muted">
          of{" "}
          <a class="mono" href={`/dashboard/transactions/${encodeURIComponent(r.parentId)}`}>
            {r.parentId}
          </a>
        </div>
      ) : null}
    </td>
    <td>{merchant}</td>
    <td>
      <Badge status={r.status} />
      {r.declineCode !== null ? <div class="small muted">{declineText(r.declineCode)}</div> : null}
    </td>
    <td class="num">{money(r.orderAmount, r.orderCurrency)}</td>
    <td class="mono">{cardOf(r.cardBin, r.cardLast4, r.cardLength) ?? r.paymentMethod ?? ""}</td>
    <td class="mono small">{r.requestId ?? ""}</td>
  </tr>
);

/** New transactions and status changes refresh the list (docs/events.md). */
const LIVE_LIST: Live = { refresh: ["transaction", "reset"] };

/** The columns of a list of transactions (the list page, a transaction's linked ones). */
export const TransactionHead: FC = () => (
  <thead>
    <tr>
      <th scope="col">Created (UTC)</th>
      <th scope="col">Transaction</th>
      <th scope="col">Kind</th>
      <th scope="col">Merchant</th>
      <th scope="col">Status</th>
      <th scope="col" class="num">
        Amount
      </th>
      <th scope="col">Card / method</th>
      <th scope="col">Request id</th>
    </tr>
  </thead>
);

export const TransactionListPage: FC<TransactionListView> = (v) => {
  const labels = new Map(v.merchants.map((m) => [m.key, m.label]));
  const params = {
    merchant: v.filter.merchant,
    kind: v.filter.kind,
    status: v.filter.status,
    subscription: v.filter.subscription,
  };
  const filtered = Object.values(params).some((x) => x !== undefined);
  return (
    <Layout title="Transactions" frame={v.frame} live={LIVE_LIST}>
      <h1>Transactions</h1>
      <form class="filters" method="get" action="/" aria-label="Filter transactions">
        <Select
          id="f-merchant"
          label="Merchant"
          name="merchant"
          value={v.filter.merchant}
          all="All merchants"
          options={v.merchants}
        />
        <Select id="f-kind" label="Kind" name="kind" value={v.filter.kind} all="All kinds" options={KIND_OPTIONS} />
        <Select id="f-status" label="Status" name="status" value={v.filter.status} all="All statuses" options={STATUS_OPTIONS} />
        {v.filter.subscription ? (
          <div>
            <label for="f-subscription">Subscription</label>
            <input type="text" id="f-subscription" name="subscription" value={v.filter.subscription} />
          </div>
        ) : null}
        {v.limit !== DEFAULT_PAGE_SIZE ? <input type="hidden" name="limit" value={String(v.limit)} /> : null}
        <button type="submit" class="primary">
          Filter
        </button>
        {filtered ? (
          <a class="button" href="/">
            Clear filters
          </a>
        ) : null}
      </form>
      <div id="live-list" data-live="">
        <table id="transactions">
          <caption>
            Newest first, {v.limit} a page{filtered ? " (filtered)" : ""}
          </caption>
          <TransactionHead />
          <tbody>
            {v.page.rows.length === 0 ? (
              <tr>
                <td colspan={8} class="empty">
                  No transactions{filtered ? " match these filters" : " yet"}.
                </td>
              </tr>
            ) : (
              v.page.rows.map((r) => <TransactionRowView r={r} merchant={labels.get(r.merchantKey) ?? r.merchantKey} />)
            )}
          </tbody>
        </table>
        <Pager page={v.page} href={(pos) => listHref("/", params, v.limit, pos)} />
      </div>
      {v.sandboxes && v.sandboxes.length > 0 ? <SandboxesPanel sandboxes={v.sandboxes} /> : null}
    </Layout>
  );
};

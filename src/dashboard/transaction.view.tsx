/**
 * One transaction's page (docs/dashboard.md): its facts, its timeline, its refunds, its webhook
 * deliveries with every attempt, request headers and body, the replay and complete buttons, and
 * the shopper's page (3DS challenge, HPP, QR) while it waits for the shopper.
 */
import type { FC } from "hono/jsx";
import { DECLINE_CODES } from "../platform/fixtures.js";
import type { AttemptRow, DeliveryRow, TransactionListRow, TransactionRow } from "./dashboard.repo.js";
import { cardOf, declineText, kindLabel, money, prettyJson } from "./format.js";
import { Badge, type Frame, Layout, Time } from "./layout.js";
import type { TimelineEvent } from "./timeline.js";
import { TransactionHead, TransactionRowView } from "./transactions.view.js";

export interface DeliveryView {
  row: DeliveryRow;
  attempts: AttemptRow[];
}

export interface TransactionView {
  frame: Frame;
  row: TransactionRow;
  merchant: string;
  /** Rows whose parent is this one (refunds). */
  linked: TransactionListRow[];
  deliveries: DeliveryView[];
  timeline: TimelineEvent[];
  /** The shopper's pages open for this transaction (3DS challenge, HPP, QR). */
  shopperLinks: Array<{ href: string; text: string }>;
  canComplete: boolean;
}

const txHref = (id: string) => `/dashboard/transactions/${encodeURIComponent(id)}`;

const Fact: FC<{ term: string; children?: unknown }> = ({ term, children }) =>
  children === undefined || children === null || children === "" ? null : (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );

const Facts: FC<{ v: TransactionView }> = ({ v }) => {
  const r = v.row;
  const converted = r.processedCurrency !== r.orderCurrency || r.processedAmount !== r.orderAmount;
  const card = cardOf(r.cardBin, r.cardLast4, r.cardLength);
  return (
    <dl class="facts" id="facts">
      <Fact term="Kind">{kindLabel(r.kind)}</Fact>
      <Fact term="Merchant">{v.merchant}</Fact>
      <Fact term="Status">
        <Badge status={r.status} />
        {r.declineCode !== null ? ` declineCode ${declineText(r.declineCode)}` : ""}
        {r.declineSubReason ? ` (${r.declineSubReason})` : ""}
      </Fact>
      <Fact term="Request id">{r.requestId ? <code>{r.requestId}</code> : null}</Fact>
      <Fact term="Amount">{money(r.orderAmount, r.orderCurrency)}</Fact>
      <Fact term="Processed">
        {converted ? `${money(r.processedAmount, r.processedCurrency)} (rate ${r.conversionRate})` : null}
      </Fact>
      <Fact term="Card">
        {card ? (
          <span class="mono">
            {card}
            {r.cardBrand ? ` ${r.cardBrand}` : ""}
            {r.cardExpMonth && r.cardExpYear ? ` exp ${r.cardExpMonth}/${r.cardExpYear}` : ""}
            {r.cardHolder ? ` · ${r.cardHolder}` : ""}
          </span>
        ) : null}
      </Fact>
      <Fact term="Payment method">{r.paymentMethod}</Fact>
      <Fact term="3-D Secure">{r.threeDs ? "yes" : null}</Fact>
      <Fact term="Card token">{r.tokenId ? <code>{r.tokenId}</code> : null}</Fact>
      <Fact term="Subscription">
        {r.subscriptionId ? (
          <a class="mono" href={`/?subscription=${encodeURIComponent(r.subscriptionId)}`}>
            {r.subscriptionId}
          </a>
        ) : null}
      </Fact>
      <Fact term="Original transaction">
        {r.parentId ? (
          <a class="mono" href={txHref(r.parentId)}>
            {r.parentId}
          </a>
        ) : null}
      </Fact>
      <Fact term="Callback URL">{r.callbackUrl ? <code>{r.callbackUrl}</code> : null}</Fact>
      <Fact term="Success redirect">{r.successRedirectUrl ? <code>{r.successRedirectUrl}</code> : null}</Fact>
      <Fact term="Failure redirect">{r.failureRedirectUrl ? <code>{r.failureRedirectUrl}</code> : null}</Fact>
      <Fact term="Created">
        <Time ms={r.createdAt} /> UTC
      </Fact>
      <Fact term="Last change">
        <Time ms={r.updatedAt} /> UTC
      </Fact>
      <Fact term="Resolves by itself">
        {r.dueAt !== null ? (
          <>
            <Time ms={r.dueAt} /> UTC{r.dueStatus ? ` → ${r.dueStatus}` : ""}
          </>
        ) : null}
      </Fact>
    </dl>
  );
};

const Timeline: FC<{ events: TimelineEvent[] }> = ({ events }) => (
  <ol class="timeline" id="timeline">
    {events.map((e) => (
      <li>
        <Time ms={e.at} />
        {e.title} {e.status ? <Badge status={e.status} /> : null}{" "}
        {e.ref ? (
          <a class="mono small" href={e.ref.href}>
            {e.ref.id}
          </a>
        ) : null}
        {e.note ? <span class="small muted"> · {e.note}</span> : null}
      </li>
    ))}
  </ol>
);

/** The complete call (docs/control-plane.md) as a form: SUCCEED, or FAILED with a decline code. */
const CompleteForm: FC<{ id: string; back: string }> = ({ id, back }) => (
  <form method="post" action={`/dashboard/transactions/${encodeURIComponent(id)}/complete`} aria-label="Complete the transaction">
    <input type="hidden" name="back" value={back} />
    <button type="submit" name="status" value="SUCCEED" class="ok">
      Complete as SUCCEED
    </button>
    <div class="field">
      <label for="decline-code">Decline code (for FAILED)</label>
      <select id="decline-code" name="declineCode">
        <option value="">default (2)</option>
        {DECLINE_CODES.map((d) => (
          <option value={String(d.code)}>{`${d.code} ${d.name}`}</option>
        ))}
      </select>
    </div>
    <button type="submit" name="status" value="FAILED" class="ko">
      Complete as FAILED
    </button>
  </form>
);

const Attempts: FC<{ attempts: AttemptRow[] }> = ({ attempts }) =>
  attempts.length === 0 ? (
    <p class="small muted">No attempt yet.</p>
  ) : (
    <table>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Time (UTC)</th>
          <th scope="col">Result</th>
          <th scope="col" class="num">
            Duration
          </th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((a) => (
          <tr>
            <td>{a.n}</td>
            <td class="time">
              <Time ms={a.at} />
            </td>
            <td>
              {a.httpStatus !== null ? (
                <span class={`badge ${a.httpStatus >= 200 && a.httpStatus < 300 ? "b-ok" : "b-bad"}`}>HTTP {a.httpStatus}</span>
              ) : null}
              {a.error ? <span class="mono small"> {a.error}</span> : null}
            </td>
            <td class="num">{a.durationMs !== null ? `${a.durationMs} ms` : ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );

const Delivery: FC<{ d: DeliveryView; back: string }> = ({ d, back }) => {
  const r = d.row;
  return (
    <article class="delivery" id={`delivery-${r.id}`} aria-labelledby={`delivery-${r.id}-title`}>
      <header>
        <h3 id={`delivery-${r.id}-title`}>
          Callback <Badge status={r.eventStatus} />
        </h3>
        <Badge status={r.status} />
        <code>{r.id}</code>
        {r.replayOf ? <span class="small muted">replay of {r.replayOf}</span> : null}
        {r.chaos ? <span class="small muted">chaos: {r.chaos}</span> : null}
        <form method="post" action={`/dashboard/webhooks/${encodeURIComponent(r.id)}/replay`}>
          <input type="hidden" name="back" value={back} />
          <button type="submit" aria-label={`Replay webhook ${r.id}`}>
            Replay
          </button>
        </form>
      </header>
      <p class="small">
        POST <code>{r.url}</code> · enqueued <Time ms={r.createdAt} />
        {r.nextAttemptAt !== null ? (
          <>
            {" "}
            · next attempt <Time ms={r.nextAttemptAt} />
          </>
        ) : null}
      </p>
      <Attempts attempts={d.attempts} />
      <details>
        <summary>Request headers and body</summary>
        <h4 class="small">Headers</h4>
        <pre class="headers">
          {Object.entries(r.headers)
            .map(([k, v]) => `${k}: ${v}`)
            .join("\n")}
          {"\nX-Sandbox-Attempt: <attempt number>"}
        </pre>
        <h4 class="small">Body</h4>
        <pre class="body">{prettyJson(r.body)}</pre>
      </details>
    </article>
  );
};

const RequestData: FC<{ row: TransactionRow }> = ({ row }) => {
  const parts = (
    [
      ["Billing details", row.billingDetails],
      ["Order", row.orderData],
      ["Device", row.device],
      ["Metadata", row.metadata],
      ["Details", row.details],
    ] as const
  ).filter(([, v]) => v !== null && v !== undefined);
  if (parts.length === 0) return null;
  return (
    <details>
      <summary>Request data ({parts.map(([name]) => name).join(", ")})</summary>
      {parts.map(([name, value]) => (
        <>
          <h3 class="small">{name}</h3>
          <pre>{prettyJson(value)}</pre>
        </>
      ))}
    </details>
  );
};

export const TransactionPage: FC<TransactionView> = (v) => {
  const r = v.row;
  const back = v.frame.here;
  return (
    <Layout
      title={`${kindLabel(r.kind)} ${r.id}`}
      frame={v.frame}
      live={{ refresh: ["transaction", "webhook"], transactionId: r.id }}
    >
      <p class="small">
        <a href="/">← All transactions</a>
      </p>
      <div id="live-transaction" data-live="">
        <h1>
          {kindLabel(r.kind)} <code>{r.id}</code> <Badge status={r.status} />
        </h1>
        {v.canComplete || v.shopperLinks.length > 0 ? (
          <section class="panel actions" aria-label="Actions">
            {v.shopperLinks.map((l) => (
              <a class="button" href={l.href}>
                {l.text}
              </a>
            ))}
            {v.canComplete ? <CompleteForm id={r.id} back={back} /> : null}
          </section>
        ) : null}
        <div class="grid">
          <section class="panel" aria-labelledby="h-details">
            <h2 id="h-details">Details</h2>
            <Facts v={v} />
            <RequestData row={r} />
          </section>
          <section class="panel" aria-labelledby="h-timeline">
            <h2 id="h-timeline">Timeline</h2>
            <Timeline events={v.timeline} />
          </section>
        </div>
        {v.linked.length > 0 ? (
          <section aria-labelledby="h-children">
            <h2 id="h-children">Refunds and other linked transactions ({v.linked.length})</h2>
            <table>
              <TransactionHead />
              <tbody>
                {v.linked.map((c) => (
                  <TransactionRowView r={c} merchant={v.merchant} />
                ))}
              </tbody>
            </table>
          </section>
        ) : null}
        <section aria-labelledby="h-deliveries" id="deliveries">
          <h2 id="h-deliveries">Webhook deliveries ({v.deliveries.length})</h2>
          {v.deliveries.length === 0 ? (
            <p class="muted">{r.callbackUrl ? "None yet." : "None: this transaction has no callbackUrl."}</p>
          ) : (
            v.deliveries.map((d) => <Delivery d={d} back={back} />)
          )}
        </section>
      </div>
    </Layout>
  );
};

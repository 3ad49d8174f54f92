/**
 * The pages a shopper answers for an APM transaction (docs/apm.md#the-hosted-payment-page, "APM
 * flows"): the hosted payment page asks for exactly the apmPayload fields the method still lacks
 * (input `name` = the field name, a label a person understands); the QR page shows the QR code and
 * its deep link. Both hold one `<form method="post">` with the two `outcome` buttons of the 3DS
 * page; in iframe mode the form targets `_top`, so the merchant's redirect replaces the window.
 */
import type { FC } from "hono/jsx";
import { Layout } from "../../http/shopper-page.js";

export interface ShopperPageView {
  /** "hpp" or "qr": the page's own path. */
  page: "hpp" | "qr";
  transactionId: string;
  merchant: string;
  /** "Payment" or "Payout". */
  operation: string;
  amount: string;
  currency: string;
  method: string;
  fields: Array<{ name: string; label: string; value: string; invalid: boolean }>;
  qr?: { png: string; deepLink: string } | undefined;
  error?: string | undefined;
  iframe: boolean;
}

const EXTRA = `
label{display:block;margin:.8rem 0 .3rem;font-weight:600}input{width:100%;box-sizing:border-box;padding:.55rem;border:1px solid #bbc;border-radius:.35rem;font-size:1rem}
input[aria-invalid=true]{border-color:#cf222e}.error{background:#ffebe9;color:#82071e;padding:.6rem;border-radius:.35rem;margin-bottom:1rem}
.qr{display:block;margin:0 auto 1rem;image-rendering:pixelated;width:220px;height:220px}code{word-break:break-all;font-size:.8rem}
.fields{margin-bottom:1.25rem}`;

export const ShopperPage: FC<ShopperPageView> = (v) => {
  const action = `/sandbox/${v.page}/${encodeURIComponent(v.transactionId)}${v.iframe ? "?mode=iframe" : ""}`;
  const title = v.page === "qr" ? "Scan to pay" : v.operation === "Payout" ? "Receive your payout" : "Complete your payment";
  return (
    <Layout title={`${title} (sandbox)`}>
      <style>{EXTRA}</style>
      <h1>{title}</h1>
      <dl>
        <dt>Merchant</dt>
        <dd data-field="merchant">{v.merchant}</dd>
        <dt>{v.operation}</dt>
        <dd data-field="amount">
          {v.amount} {v.currency}
        </dd>
        <dt>Method</dt>
        <dd data-field="method">{v.method}</dd>
        <dt>Transaction</dt>
        <dd data-field="transaction">{v.transactionId}</dd>
      </dl>
      {v.error ? (
        <p class="error" role="alert">
          {v.error}
        </p>
      ) : null}
      {v.qr ? (
        <div>
          <img class="qr" alt="QR code to scan with your payment app" src={`data:image/png;base64,${v.qr.png}`} />
          <p>
            Or open: <code data-field="deep-link">{v.qr.deepLink}</code>
          </p>
        </div>
      ) : null}
      <form method="post" action={action} target={v.iframe ? "_top" : undefined}>
        {v.fields.length > 0 ? (
          <div class="fields">
            {v.fields.map((f) => (
              <>
                <label for={`f-${f.name}`}>{f.label}</label>
                <input
                  id={`f-${f.name}`}
                  name={f.name}
                  value={f.value}
                  autocomplete="off"
                  aria-invalid={f.invalid ? "true" : undefined}
                />
              </>
            ))}
          </div>
        ) : null}
        <div class="buttons">
          <button type="submit" name="outcome" value="success" class="ok">
            {v.page === "qr" ? "I have paid" : v.operation === "Payout" ? "Confirm" : "Pay"}
          </button>
          <button type="submit" name="outcome" value="failure" class="ko">
            Cancel
          </button>
        </div>
      </form>
      <p class="note">Sandbox: no real provider is contacted. The webhook, not this page, tells the merchant the outcome.</p>
    </Layout>
  );
};

/** The page as an HTML document (for `c.html`). */
export const renderShopperPage = (v: ShopperPageView) => <ShopperPage {...v} />;

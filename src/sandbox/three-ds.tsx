/**
 * The 3DS challenge page a shopper's browser opens (docs/cards.md#3ds-challenge): one
 * `<form method="post">` with two submit buttons, `name="outcome"` `success` / `failure`. In
 * iframe mode the form targets `_top`, so the merchant's redirect replaces the whole window.
 */
import type { FC, PropsWithChildren } from "hono/jsx";

export interface ChallengeView {
  transactionId: string;
  merchant: string;
  amount: string;
  currency: string;
  cardMask: string;
  iframe: boolean;
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
main{max-width:26rem;margin:2rem auto;background:#fff;border-radius:.5rem;padding:1.5rem;box-shadow:0 1px 4px #0002}
h1{font-size:1.2rem;margin:0 0 1rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:0 0 1.5rem}
dt{color:#667}dd{margin:0;font-weight:600}.buttons{display:flex;gap:.75rem}
button{flex:1;padding:.7rem;border:0;border-radius:.4rem;font-size:1rem;cursor:pointer}
.ok{background:#1a7f37;color:#fff}.ko{background:#cf222e;color:#fff}.note{color:#667;font-size:.85rem;margin-top:1rem}`;

export const Layout: FC<PropsWithChildren<{ title: string }>> = ({ title, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>{title}</title>
      <style>{STYLE}</style>
    </head>
    <body>
      <main>{children}</main>
    </body>
  </html>
);

/** The challenge itself: what is being paid, and the two answers. */
export const ChallengePage: FC<ChallengeView> = (v) => {
  const action = `/sandbox/3ds/${encodeURIComponent(v.transactionId)}${v.iframe ? "?mode=iframe" : ""}`;
  return (
    <Layout title="3-D Secure verification (sandbox)">
      <h1>3-D Secure verification</h1>
      <dl>
        <dt>Merchant</dt>
        <dd data-field="merchant">{v.merchant}</dd>
        <dt>Amount</dt>
        <dd data-field="amount">
          {v.amount} {v.currency}
        </dd>
        <dt>Card</dt>
        <dd data-field="card">{v.cardMask}</dd>
        <dt>Transaction</dt>
        <dd data-field="transaction">{v.transactionId}</dd>
      </dl>
      <form method="post" action={action} target={v.iframe ? "_top" : undefined}>
        <div class="buttons">
          <button type="submit" name="outcome" value="success" class="ok">
            Authenticate
          </button>
          <button type="submit" name="outcome" value="failure" class="ko">
            Fail authentication
          </button>
        </div>
      </form>
      <p class="note">Sandbox: no real bank is contacted. Left unanswered, the challenge fails after 30 minutes.</p>
    </Layout>
  );
};

/** Shown after an answer when the merchant gave no redirect URL, and for closed or unknown challenges. */
export const MessagePage: FC<{ title: string; message: string }> = ({ title, message }) => (
  <Layout title={title}>
    <h1>{title}</h1>
    <p>{message}</p>
  </Layout>
);

/** The challenge as an HTML document (for `c.html`). */
export const renderChallenge = (v: ChallengeView) => <ChallengePage {...v} />;

/** A message page as an HTML document (for `c.html`). */
export const renderMessage = (title: string, message: string) => <MessagePage title={title} message={message} />;

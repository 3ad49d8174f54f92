/**
 * The 3DS challenge page a shopper's browser opens (docs/cards.md#3ds-challenge): one
 * `<form method="post">` with two submit buttons, `name="outcome"` `success` / `failure`. In
 * iframe mode the form targets `_top`, so the merchant's redirect replaces the whole window.
 */
import type { FC } from "hono/jsx";
import { Layout } from "../../http/shopper-page.js";

export interface ChallengeView {
  transactionId: string;
  merchant: string;
  amount: string;
  currency: string;
  cardMask: string;
  iframe: boolean;
}

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

/** The challenge as an HTML document (for `c.html`). */
export const renderChallenge = (v: ChallengeView) => <ChallengePage {...v} />;

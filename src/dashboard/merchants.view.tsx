/**
 * The merchants and the loaded scenarios (docs/dashboard.md). A merchant's secret is never shown in
 * full, and a scenario's card numbers are masked.
 */
import type { FC } from "hono/jsx";
import type { Scenario, ScenarioRule } from "../scenarios/scenario.schema.js";
import type { MerchantRow, ScenarioRow } from "./dashboard.repo.js";
import { maskPan, maskSecret } from "./format.js";
import { type Frame, Layout, Time } from "./layout.js";

export interface MerchantsView {
  frame: Frame;
  merchants: MerchantRow[];
  scenarios: ScenarioRow[];
}

interface Outcome {
  status?: string | undefined;
  declineCode?: number | undefined;
  completeAfter?: string | undefined;
  completeWith?: string | undefined;
}

/** `FAILED 5`, `PROCESSING → SUCCEED after PT5M`. */
function outcomeText(o: Outcome | undefined): string {
  if (!o?.status) return "";
  let text = o.status;
  if (o.declineCode !== undefined) text += ` (declineCode ${o.declineCode})`;
  if (o.completeAfter) text += ` → ${o.completeWith ?? "final"} after ${o.completeAfter}`;
  return text;
}

function ruleWhen(r: ScenarioRule): string {
  const parts = [`operation ${r.operation ?? "payment"}`];
  if (r.amount !== undefined) parts.push(`amount ${r.amount}${r.currency ? ` ${r.currency}` : ""}`);
  if (r.card !== undefined) parts.push(`card ${maskPan(r.card)}`);
  return parts.join(", ");
}

function ruleThen(r: ScenarioRule): string {
  const parts = [outcomeText(r)];
  if (r.httpStatus !== undefined) parts.push(`HTTP ${r.httpStatus}`);
  if (r.latencyMs !== undefined) parts.push(`${r.latencyMs} ms latency`);
  return parts.filter(Boolean).join("; ");
}

const ScenarioSection: FC<{ row: ScenarioRow }> = ({ row }) => {
  const doc = row.document as Partial<Scenario>;
  const cards = doc.cards ?? [];
  const rules = doc.rules ?? [];
  const rates = Object.entries(doc.fxRates ?? {});
  return (
    <section class="panel scenario" aria-labelledby={`scenario-${row.name}`}>
      <h3 id={`scenario-${row.name}`}>{row.name}</h3>
      {doc.description ? <p>{doc.description}</p> : null}
      <p class="small muted">
        From <code>{row.source}</code>, loaded <Time ms={row.loadedAt} /> UTC · {(doc.merchants ?? []).length} merchants ·{" "}
        {cards.length} cards · {rules.length} rules
        {rates.length > 0 ? ` · FX ${rates.map(([c, r]) => `${c} ${r}`).join(", ")}` : ""}
      </p>
      {cards.length > 0 ? (
        <table>
          <caption>Cards</caption>
          <thead>
            <tr>
              <th scope="col">Card</th>
              <th scope="col">Label</th>
              <th scope="col">Payment</th>
              <th scope="col">Recurring first / later</th>
              <th scope="col">Payout</th>
            </tr>
          </thead>
          <tbody>
            {cards.map((c) => (
              <tr>
                <td class="mono">{maskPan(c.number)}</td>
                <td>{c.label ?? ""}</td>
                <td>{outcomeText(c.payment)}</td>
                <td>{[outcomeText(c.recurring?.first), outcomeText(c.recurring?.later)].filter(Boolean).join(" / ")}</td>
                <td>{outcomeText(c.payout)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {rules.length > 0 ? (
        <table>
          <caption>Rules (the last matching one applies)</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Then</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <tr>
                <td>{ruleWhen(r)}</td>
                <td>{ruleThen(r)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
};

export const MerchantsPage: FC<MerchantsView> = (v) => (
  <Layout title="Merchants & scenarios" frame={v.frame}>
    <h1>Merchants</h1>
    <table id="merchants">
      <thead>
        <tr>
          <th scope="col">Merchant key</th>
          <th scope="col">Name</th>
          <th scope="col">mid</th>
          <th scope="col" class="num">
            merchantId
          </th>
          <th scope="col" class="num">
            accountId
          </th>
          <th scope="col">Secret</th>
          <th scope="col">Processing currency</th>
          <th scope="col">Wallet domains</th>
          <th scope="col">Webhook chaos</th>
          <th scope="col">From</th>
        </tr>
      </thead>
      <tbody>
        {v.merchants.map((m) => (
          <tr>
            <td>
              <a class="mono" href={`/?merchant=${encodeURIComponent(m.merchantKey)}`} title="Its transactions">
                {m.merchantKey}
              </a>
            </td>
            <td>{m.name ?? ""}</td>
            <td class="mono">{m.mid}</td>
            <td class="num">{m.merchantId}</td>
            <td class="num">{m.accountId}</td>
            <td class="mono" aria-label="Secret, masked">
              {maskSecret(m.merchantSecret)}
            </td>
            <td>{m.processingCurrency ?? "order currency"}</td>
            <td>{m.walletDomains.join(", ")}</td>
            <td>
              {m.webhookChaos
                ? Object.entries(m.webhookChaos)
                    .map(([k, x]) => `${k} ${x}`)
                    .join(", ")
                : ""}
            </td>
            <td>{m.source}</td>
          </tr>
        ))}
      </tbody>
    </table>
    <h2>Scenarios ({v.scenarios.length})</h2>
    {v.scenarios.length === 0 ? (
      <p class="muted">
        None loaded. Start with <code>--scenario FILE</code> or <code>POST /_sandbox/scenarios</code>.
      </p>
    ) : (
      v.scenarios.map((s) => <ScenarioSection row={s} />)
    )}
  </Layout>
);

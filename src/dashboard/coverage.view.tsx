/**
 * The Coverage page (docs/coverage.md#the-dashboard): which payment behaviours happened in this
 * sandbox since its last reset. A matrix of the areas (seen of total), then each area's behaviours:
 * a seen one with how often and a link to where it was first seen (its transaction, its
 * subscription's charges), a never-seen one with its hint. It follows the live events.
 */
import type { FC } from "hono/jsx";
import type { CoverageBehaviourEntry, CoverageReport } from "../coverage/coverage.wire.js";
import { type Frame, Layout } from "./layout.js";

export interface CoverageView {
  frame: Frame;
  report: CoverageReport;
}

/** Where a behaviour was first seen, as a link where the dashboard has a page for it. */
const FirstSeen: FC<{ b: CoverageBehaviourEntry }> = ({ b }) => {
  const e = b.first;
  if (!e) return null;
  const when = <time datetime={e.at}>{e.at.slice(0, 19).replace("T", " ")}</time>;
  if (e.transactionId) {
    return (
      <>
        <a class="mono" href={`/dashboard/transactions/${encodeURIComponent(e.transactionId)}`}>
          {e.transactionId}
        </a>{" "}
        · {when}
      </>
    );
  }
  if (e.subscriptionId) {
    return (
      <>
        <a class="mono" href={`/?subscription=${encodeURIComponent(e.subscriptionId)}`} title="Its charges">
          {e.subscriptionId}
        </a>{" "}
        · {when}
      </>
    );
  }
  return (
    <>
      <span class="mono">{e.request ?? e.deliveryId ?? ""}</span> · {when}
    </>
  );
};

export const CoveragePage: FC<CoverageView> = ({ frame, report }) => (
  <Layout title="Coverage" frame={frame} live={{ refresh: ["transaction", "webhook", "reset"] }}>
    <h1>Payment-behaviour coverage</h1>
    <div id="live-coverage" data-live="">
      <p class="panel" id="coverage-summary">
        <strong>
          {report.seen} of {report.total}
        </strong>{" "}
        behaviours of the catalogue seen in this sandbox since its last reset ({report.percent}%). Each one never seen says how to
        cause it; <code>paysandbox coverage --require checklists/go-live.yaml</code> checks a suite in CI.
      </p>
      <table id="coverage-areas">
        <caption>By area</caption>
        <thead>
          <tr>
            <th scope="col">Area</th>
            <th scope="col" class="num">
              Seen
            </th>
            <th scope="col" class="num">
              Total
            </th>
            <th scope="col" class="num">
              %
            </th>
          </tr>
        </thead>
        <tbody>
          {report.areas.map((a) => (
            <tr>
              <th scope="row">
                <a href={`#area-${a.area}`}>{a.title}</a>
              </th>
              <td class="num">{a.seen}</td>
              <td class="num">{a.total}</td>
              <td class="num">{a.percent}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {report.areas.map((a) => (
        <section aria-labelledby={`area-${a.area}`}>
          <h2 id={`area-${a.area}`}>
            {a.title}{" "}
            <span class="small muted">
              {a.seen} of {a.total}
            </span>
          </h2>
          <table class="coverage-area" data-area={a.area}>
            <thead>
              <tr>
                <th scope="col">Seen</th>
                <th scope="col">Behaviour</th>
                <th scope="col" class="num">
                  Count
                </th>
                <th scope="col">First seen, or how to cause it</th>
              </tr>
            </thead>
            <tbody>
              {report.behaviours
                .filter((b) => b.area === a.area)
                .map((b) => (
                  <tr id={`b-${b.id}`} data-seen={b.count > 0 ? "yes" : "no"}>
                    <td>{b.count > 0 ? <span class="badge b-ok">seen</span> : <span class="badge b-off">never</span>}</td>
                    <td>
                      {b.title}
                      <div class="small muted mono">{b.id}</div>
                    </td>
                    <td class="num">{b.count}</td>
                    <td class="small">{b.count > 0 ? <FirstSeen b={b} /> : <span class="hint">{b.hint}</span>}</td>
                  </tr>
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </div>
  </Layout>
);

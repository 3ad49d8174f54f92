/**
 * The frame of every dashboard page (docs/dashboard.md): navigation, the virtual clock with its advance
 * buttons, the flash message of the last action, and one stylesheet inlined (no CDN: it works
 * offline). Keyboard first: a skip link, real links and buttons, a visible focus ring.
 *
 * One small script, allowed by its hash, makes a page follow the sandbox's live events (docs/events.md):
 * the clock shows each move, and the regions marked `data-live` are fetched again and swapped in when
 * an event concerns them. Without script every page is the same, a reload away from the news.
 */
import { createHash } from "node:crypto";
import type { Child, FC, PropsWithChildren } from "hono/jsx";
import { toIso } from "../platform/clock.js";
import { formatTime } from "./format.js";

/**
 * What every page of ours shares (the dashboard's, the guide's): the page's font and colours, the
 * top bar with the brand and the main navigation, focus rings and the skip link.
 */
export const FRAME_CSS = `
*{box-sizing:border-box}
html{font-size:15px}
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;background:#f3f4f7;color:#1b1f29}
a{color:#0a4fc4}a:hover{color:#06327c}
:focus-visible{outline:3px solid #1a5fd6;outline-offset:2px;border-radius:2px}
.skip{position:absolute;left:-999px;top:.5rem;background:#fff;padding:.4rem .8rem;z-index:2}
.skip:focus{left:.5rem}
header.top{background:#141a2a;color:#e9ecf3;padding:.55rem 1.25rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem}
header.top a{color:#e9ecf3}
header.top :focus-visible{outline-color:#9cc2ff}
.brand{font-weight:700;font-size:1.1rem;text-decoration:none;letter-spacing:.01em}
.brand small{font-weight:400;color:#aab3c5;font-size:.75rem;margin-left:.35rem}
nav.main ul{list-style:none;display:flex;gap:1rem;margin:0;padding:0}
nav.main a{text-decoration:none;padding:.2rem 0;border-bottom:2px solid transparent}
nav.main a[aria-current=page]{border-bottom-color:#7fb0ff;font-weight:600}
`;

const CSS = `${FRAME_CSS}body{line-height:1.45}
code,.mono{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.86em}
.clock{margin-left:auto;display:flex;flex-wrap:wrap;align-items:center;gap:.4rem .6rem}
.clock .now{font-variant-numeric:tabular-nums;white-space:nowrap}
.clock .now strong{color:#fff}
.clock form{display:flex;gap:.3rem;align-items:center;margin:0}
.clock button{background:#2b3550;color:#fff;border:1px solid #4a5676;padding:.2rem .5rem;border-radius:.3rem;font:inherit;font-size:.85rem;cursor:pointer}
.clock button:hover{background:#3a4668}
.clock input{width:7.5rem;padding:.2rem .4rem;border-radius:.3rem;border:1px solid #4a5676;background:#0f1422;color:#fff;font:inherit;font-size:.85rem}
.clock label{font-size:.8rem;color:#aab3c5}
td.actions form{display:inline;margin:0}
.logout button,.fork button{background:none;border:0;color:#e9ecf3;text-decoration:underline;font:inherit;cursor:pointer;padding:0}
main{max-width:84rem;margin:0 auto;padding:1rem 1.25rem 3rem}
h1{font-size:1.35rem;margin:.6rem 0 .8rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
h2{font-size:1.05rem;margin:1.4rem 0 .5rem}
.panel{background:#fff;border:1px solid #dadee6;border-radius:.45rem;padding:.9rem 1rem;margin:0 0 1rem}
.panel>h2:first-child,.panel>h3:first-child{margin-top:0}
.flash{padding:.6rem .9rem;border-radius:.4rem;margin:0 0 1rem;border:1px solid}
.flash.ok{background:#e8f6ec;border-color:#9bd3ab;color:#0f4d22}
.flash.error{background:#fdeced;border-color:#f0a3a9;color:#7d1019}
form.filters{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:flex-end;margin:0 0 .8rem}
form.filters label,.field label{display:block;font-size:.8rem;color:#4a5263;margin-bottom:.15rem}
select,input[type=text],input[type=password]{font:inherit;padding:.3rem .45rem;border:1px solid #b9c0cc;border-radius:.3rem;background:#fff;min-width:9rem}
button,.button{font:inherit;padding:.32rem .8rem;border-radius:.3rem;border:1px solid #9aa3b2;background:#fff;color:#1b1f29;cursor:pointer;text-decoration:none;display:inline-block}
button:hover,.button:hover{background:#eef1f6}
button.primary{background:#1a5fd6;border-color:#1a5fd6;color:#fff}button.primary:hover{background:#144bb0}
button.ok{background:#1a7f37;border-color:#1a7f37;color:#fff}button.ok:hover{background:#136129}
button.ko{background:#c8232f;border-color:#c8232f;color:#fff}button.ko:hover{background:#a01a24}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #dadee6;font-size:.9rem}
caption{text-align:left;color:#4a5263;font-size:.85rem;padding:.2rem 0 .4rem}
th,td{padding:.38rem .6rem;border-bottom:1px solid #e6e9ef;text-align:left;vertical-align:top}
thead th{background:#eef1f6;font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:#3c4454;white-space:nowrap}
tbody tr:hover{background:#f7f9fc}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.mono{white-space:nowrap}
.scenario table{margin-bottom:.8rem}
td.time{white-space:nowrap;font-variant-numeric:tabular-nums;color:#3c4454}
.empty{color:#5b6375;padding:1rem;text-align:center}
.badge{display:inline-block;padding:.05rem .45rem;border-radius:1rem;font-size:.75rem;font-weight:600;letter-spacing:.02em;border:1px solid;white-space:nowrap}
.b-ok{background:#e4f5e9;color:#11632b;border-color:#9bd3ab}
.b-bad{background:#fdecee;color:#9b1420;border-color:#f0a3a9}
.b-wait{background:#fff4d6;color:#7a5200;border-color:#e6c46b}
.b-info{background:#e6effe;color:#1743a0;border-color:#9dbaf2}
.b-off{background:#eef0f3;color:#454d5c;border-color:#c5cad3}
.pager{display:flex;gap:.6rem;margin:.8rem 0;align-items:center}
.pager .disabled{color:#8a91a0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:0;font-size:.92rem}
dl.facts dt{color:#4a5263}dl.facts dd{margin:0;overflow-wrap:anywhere}
.grid{display:grid;grid-template-columns:minmax(0,1.1fr) minmax(0,1fr);gap:1rem}
@media (max-width:60rem){.grid{grid-template-columns:1fr}.clock{margin-left:0}}
ol.timeline{list-style:none;margin:0;padding:0 0 0 1rem;border-left:2px solid #c9d3e6}
ol.timeline li{position:relative;padding:.15rem 0 .55rem .6rem}
ol.timeline li::before{content:"";position:absolute;left:-1.42rem;top:.45rem;width:.65rem;height:.65rem;border-radius:50%;background:#fff;border:2px solid #1a5fd6}
ol.timeline time{display:block;font-size:.8rem;color:#4a5263;font-variant-numeric:tabular-nums}
.actions{display:flex;flex-wrap:wrap;gap:.6rem 1rem;align-items:flex-end}
.actions form{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end;margin:0}
article.delivery{border:1px solid #dadee6;border-radius:.45rem;background:#fff;padding:.7rem .9rem;margin:0 0 .8rem}
article.delivery header{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:center}
article.delivery h3{font-size:.98rem;margin:0}
article.delivery table{margin:.5rem 0;font-size:.85rem;width:auto;min-width:36rem}
details summary{cursor:pointer;color:#0a4fc4;margin:.3rem 0}
pre{background:#f6f7f9;border:1px solid #e1e4ea;border-radius:.3rem;padding:.55rem .7rem;overflow:auto;max-height:24rem;font-size:.8rem;margin:.3rem 0}
.muted{color:#5b6375}.small{font-size:.85rem}
.login{max-width:24rem;margin:4rem auto}
.login input{width:100%}
`;

/**
 * The live updates (docs/events.md). The stream's URL is the `href` of `<link id="live-events">`, so it
 * carries a sandbox's base path like every other link (src/http/base-path.ts) and starts after the
 * last event the page was rendered with. The page itself is fetched again (throttled, one at a time)
 * and each `[data-live]` element replaced by its fresh copy; `main[data-refresh]` names the event
 * types that concern the page, `main[data-transaction]` the transaction it shows.
 */
const SCRIPT = `(function(){
var link=document.getElementById("live-events"),main=document.getElementById("main");
if(!link||!main||!window.EventSource||!window.fetch||!window.DOMParser)return;
var clock=document.getElementById("clock-now"),on=(main.getAttribute("data-refresh")||"").split(","),tx=main.getAttribute("data-transaction"),timer=null,busy=false,again=false;
function refresh(){if(busy){again=true;return}busy=true;
fetch(location.href,{headers:{Accept:"text/html"},credentials:"same-origin"}).then(function(r){return r.ok?r.text():""}).then(function(html){if(!html)return;
var doc=new DOMParser().parseFromString(html,"text/html");
document.querySelectorAll("[data-live]").forEach(function(el){var fresh=doc.getElementById(el.id);if(fresh)el.replaceWith(document.importNode(fresh,true))})
}).catch(function(){}).then(function(){busy=false;if(again){again=false;schedule()}})}
function schedule(){if(!timer)timer=setTimeout(function(){timer=null;refresh()},150)}
var es=new EventSource(link.href);
es.addEventListener("clock",function(e){var d=JSON.parse(e.data);if(clock){clock.setAttribute("datetime",d.now);clock.textContent=d.now.slice(0,19).replace("T"," ")}if(on.indexOf("clock")>=0)schedule()});
["transaction","webhook","reset"].forEach(function(type){es.addEventListener(type,function(e){if(on.indexOf(type)<0)return;
if(tx&&type!=="reset"&&JSON.parse(e.data).transactionId!==tx)return;schedule()})});
})();`;

/** The Content-Security-Policy of every page: this one stylesheet, this one script, the stream and pages of ourselves, forms to ourselves. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(CSS).digest("base64")}'`,
  `script-src 'sha256-${createHash("sha256").update(SCRIPT).digest("base64")}'`,
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

export interface Flash {
  kind: "ok" | "error";
  text: string;
}

/** What every page's frame needs: where it is, the clock, the flash, and whether a session exists. */
export interface Frame {
  /** The page's own path and query: the clock forms come back to it. */
  here: string;
  section: "transactions" | "subscriptions" | "merchants" | "coverage" | "none";
  nowMs: number;
  scale: number;
  flash?: Flash | undefined;
  /** Admin token set: show the log-out button. */
  loggedIn: boolean;
  /** The newest live event when the page was rendered: its updates start after it. */
  eventsSince: number;
  /** Part of a server: offer Fork (docs/snapshots.md). */
  canFork: boolean;
}

/** What live events a page follows (docs/events.md): the types that refresh its `data-live` regions, and its transaction. */
export interface Live {
  refresh: ReadonlyArray<"transaction" | "webhook" | "reset">;
  transactionId?: string;
}

const SECTIONS = [
  { id: "transactions", href: "/", label: "Transactions" },
  { id: "subscriptions", href: "/dashboard/subscriptions", label: "Subscriptions" },
  { id: "merchants", href: "/dashboard/merchants", label: "Merchants & scenarios" },
  { id: "coverage", href: "/dashboard/coverage", label: "Coverage" },
] as const;

const ADVANCE_STEPS = [
  { by: "PT1M", text: "+1 min", label: "Advance the clock by 1 minute" },
  { by: "PT1H", text: "+1 h", label: "Advance the clock by 1 hour" },
  { by: "P1D", text: "+1 d", label: "Advance the clock by 1 day" },
  { by: "P1M", text: "+1 M", label: "Advance the clock by 1 month" },
] as const;

/** The virtual clock and its advance buttons (docs/control-plane.md#time-travel), on every page. */
const ClockPanel: FC<{ frame: Frame }> = ({ frame }) => (
  <section class="clock" aria-label="Virtual clock">
    <span class="now">
      Virtual time{" "}
      <strong>
        <time id="clock-now" datetime={toIso(frame.nowMs)}>
          {formatTime(frame.nowMs)}
        </time>{" "}
        UTC
      </strong>
      {frame.scale === 1 ? "" : ` · ×${frame.scale}`}
    </span>
    <form method="post" action="/dashboard/clock/advance">
      <input type="hidden" name="back" value={frame.here} />
      {ADVANCE_STEPS.map((s) => (
        <button type="submit" name="by" value={s.by} aria-label={s.label} title={s.label}>
          {s.text}
        </button>
      ))}
    </form>
    <form method="post" action="/dashboard/clock/advance">
      <input type="hidden" name="back" value={frame.here} />
      <label for="advance-by">ISO 8601 duration</label>
      <input type="text" id="advance-by" name="by" placeholder="P2DT3H" autocomplete="off" spellcheck={false} />
      <button type="submit">Advance</button>
    </form>
  </section>
);

/** A status as a coloured badge; the text is the status itself, so colour is never the only cue. */
export const Badge: FC<{ status: string }> = ({ status }) => <span class={`badge ${badgeClass(status)}`}>{status}</span>;

function badgeClass(status: string): string {
  switch (status) {
    case "SUCCEED":
    case "ACTIVE":
    case "delivered":
      return "b-ok";
    case "FAILED":
    case "failed":
    case "CHARGEBACK":
      return "b-bad";
    case "PENDING":
    case "PROCESSING":
    case "NEW":
    case "pending":
    case "TRIALING":
      return "b-wait";
    case "CUSTOMER_VERIFICATION":
      return "b-info";
    default:
      return "b-off";
  }
}

/** `<time>` of a virtual instant. */
export const Time: FC<{ ms: number }> = ({ ms }) => <time datetime={toIso(ms)}>{formatTime(ms)}</time>;

/** The skip link and the top bar FRAME_CSS styles (the dashboard's and the guide's pages): the brand, then what the page puts there. */
export const TopBar: FC<PropsWithChildren<{ home: string; label: string }>> = ({ home, label, children }) => (
  <>
    <a class="skip" href="#main">
      Skip to content
    </a>
    <header class="top">
      <a class="brand" href={home}>
        paysandbox<small>{label}</small>
      </a>
      {children}
    </header>
  </>
);

/** The whole document around a page's content. */
export const Layout: FC<PropsWithChildren<{ title: string; frame?: Frame | undefined; live?: Live | undefined }>> = ({
  title,
  frame,
  live,
  children,
}) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{`${title} · paysandbox`}</title>
      <style dangerouslySetInnerHTML={{ __html: CSS }} />
      {frame ? (
        <link
          id="live-events"
          rel="alternate"
          type="text/event-stream"
          href={`/dashboard/events?since=${frame.eventsSince}&types=${["clock", ...(live?.refresh ?? [])].join(",")}`}
        />
      ) : null}
    </head>
    <body>
      <TopBar home="/" label="dashboard">
        {frame ? (
          <nav class="main" aria-label="Sections">
            <ul>
              {SECTIONS.map((s) => (
                <li>
                  <a href={s.href} aria-current={frame.section === s.id ? "page" : undefined}>
                    {s.label}
                  </a>
                </li>
              ))}
              <li>
                <a href="/docs">API docs</a>
              </li>
              <li>
                <a href="/guide">Guide</a>
              </li>
              <li>
                <a
                  href="/dashboard/recording"
                  download="recording.yaml"
                  title="What was done here, as a steps file paysandbox run replays"
                >
                  Recording
                </a>
              </li>
              <li>
                <a
                  href="/dashboard/snapshot"
                  download
                  title="This sandbox's whole state as a file: paysandbox snapshot load starts new sandboxes from it"
                >
                  Download snapshot
                </a>
              </li>
              {frame.canFork ? (
                <li>
                  <form class="fork" method="post" action="/dashboard/fork">
                    <input type="hidden" name="back" value={frame.here} />
                    <button type="submit" title="A new sandbox of this server, a copy of this one now">
                      Fork
                    </button>
                  </form>
                </li>
              ) : null}
            </ul>
          </nav>
        ) : null}
        {frame ? <ClockPanel frame={frame} /> : null}
        {frame?.loggedIn ? (
          <form class="logout" method="post" action="/dashboard/logout">
            <button type="submit">Log out</button>
          </form>
        ) : null}
      </TopBar>
      <main id="main" data-refresh={live?.refresh.join(",")} data-transaction={live?.transactionId}>
        {frame?.flash ? (
          <p class={`flash ${frame.flash.kind}`} role={frame.flash.kind === "error" ? "alert" : "status"} id="flash">
            {frame.flash.text}
          </p>
        ) : null}
        {children}
      </main>
      {frame ? <script dangerouslySetInnerHTML={{ __html: SCRIPT }} /> : null}
    </body>
  </html>
);

/** A page with only a title and a message (404, 400, 401, 403). */
export const MessagePage: FC<{ title: string; message: string; frame?: Frame | undefined; children?: Child }> = (p) => (
  <Layout title={p.title} frame={p.frame}>
    <h1>{p.title}</h1>
    <p class="panel" id="message">
      {p.message}
    </p>
    {p.children}
  </Layout>
);

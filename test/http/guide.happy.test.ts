/**
 * `/guide`: README.md and docs/*.md rendered by the server itself, offline, with
 * links between pages and anchors rewritten to /guide URLs, GitHub's heading ids, escaped code,
 * the page list, the guide's CSP; linked from the dashboard and from /docs' OpenAPI description.
 * The pages used are README.md and docs/lifecycles.md, which exist on every branch.
 */
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { guideUrl, renderMarkdown, slugger } from "../../src/guide/markdown.js";
import { makeSandbox, makeServer, type TestSandbox, type TestServer } from "../helpers/harness.js";

let s: TestSandbox | undefined;
let server: TestServer | undefined;
afterEach(async () => {
  await s?.close();
  await server?.close();
  s = undefined;
  server = undefined;
});

const idsOf = (html: string) => [...html.matchAll(/<h[1-6] id="([^"]+)"/g)].map((m) => m[1]);

describe("GET /guide", () => {
  it("renders README.md with the list of docs/ pages, in the guide's frame and CSP", async () => {
    s = makeSandbox();
    const res = await s.http.get("/guide");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/html/);
    expect(res.headers["content-security-policy"]).toMatch(/default-src 'none'; style-src 'sha256-[^']+'; img-src 'self' data:/);
    expect(res.headers["content-security-policy"]).not.toContain("script-src");
    expect(res.text).toMatch(/^<!doctype html>/);
    expect(res.text).toContain("<title>paysandbox · paysandbox guide</title>");
    expect(res.text).toContain('<h1 id="paysandbox">paysandbox</h1>');
    expect(res.text).toMatch(
      /<nav class="pages" aria-label="Guide pages">[\s\S]*href="\/guide\/lifecycles"[^>]*>Status lifecycles<\/a>/,
    );
    expect(res.text).toContain('<a href="/guide" aria-current="page">Overview (README)</a>');
    expect(res.text).toContain('<a href="/docs">API docs</a>');
    expect(res.text).not.toContain("<script");
  });

  it("renders docs/lifecycles.md: ids for anchors, Mermaid source as code, tables", async () => {
    s = makeSandbox();
    const res = await s.http.get("/guide/lifecycles");
    expect(res.status).toBe(200);
    expect(res.text).toContain("<title>Status lifecycles · paysandbox guide</title>");
    expect(idsOf(res.text)).toEqual(
      expect.arrayContaining(["status-lifecycles", "refund-and-card-payout", "apm-payment", "subscriptions"]),
    );
    expect(res.text).toContain('<pre class="mermaid"><code class="language-mermaid">stateDiagram-v2\n');
    expect(res.text).toContain("[*] --> SUCCEED: approved\n");
    expect(res.text).toMatch(/<table>\s*<thead>/);
    expect(res.text).toMatch(/href="\/guide\/lifecycles" aria-current="page"/);
    // the HTML comment of the generated page is not shown (raw HTML is dropped)
    expect(res.text).not.toContain("do not edit by hand");
  });

  it("every README heading has its GitHub id, and a link to another page's anchor lands on its heading", async () => {
    s = makeSandbox();
    const res = await s.http.get("/guide");
    const ids = new Set(idsOf(res.text));
    const readme = readFileSync("README.md", "utf8");
    let fenced = false;
    const headings = readme.split("\n").filter((l) => {
      if (l.startsWith("```")) fenced = !fenced;
      return !fenced && /^#{1,6} /.test(l);
    }).length;
    expect(ids.size).toBeGreaterThan(0);
    expect(idsOf(res.text)).toHaveLength(headings);
    // docs/qr.md links apm.md#the-request-checksum
    const qr = await s.http.get("/guide/qr");
    const links = [...qr.text.matchAll(/href="\/guide\/([a-z0-9-]+)#([^"]+)"/g)].map((m) => [m[1]!, m[2]!] as const);
    expect(links.length).toBeGreaterThan(0);
    for (const [page, anchor] of links) {
      const target = await s.http.get(`/guide/${page}`);
      expect(idsOf(target.text), `/guide/${page}#${anchor}`).toContain(decodeURIComponent(anchor));
    }
  });

  it("is linked from the dashboard's nav and from the OpenAPI description /docs shows", async () => {
    s = makeSandbox();
    const dash = await s.http.get("/").set("accept", "text/html");
    expect(dash.text).toContain('<a href="/guide">Guide</a>');
    const doc = await s.http.get("/openapi.json");
    expect(doc.body.info.description).toContain("[/guide](/guide)");
  });

  it("under a sandbox's base path its links carry the base", async () => {
    server = makeServer();
    const sb = await server.create();
    const res = await server.http.get(`${sb.base}/guide/lifecycles`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`href="${sb.base}/guide"`);
    expect(res.text).toContain(`href="${sb.base}/guide/lifecycles"`);
    expect((await server.http.get(`${sb.base}/guide/nope`)).status).toBe(404);
  });

  it("serves the docs' screenshots under /guide/images/", async () => {
    s = makeSandbox();
    const res = await s.http.get("/guide/images/dashboard.png").buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("image/png");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect((res.body as Buffer).subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  });

  it("answers the same page again from its kept rendering", async () => {
    s = makeSandbox();
    const a = await s.http.get("/guide/lifecycles");
    const b = await s.http.get("/guide/lifecycles");
    expect(b.text).toBe(a.text);
  });
});

describe("the Markdown rendering", () => {
  it("rewrites links between guides and to images, keeps anchors and absolute URLs", () => {
    expect(guideUrl("docs/lifecycles.md", "README.md")).toBe("/guide/lifecycles");
    expect(guideUrl("docs/lifecycles.md#apm-payout", "README.md")).toBe("/guide/lifecycles#apm-payout");
    expect(guideUrl("./lifecycles.md#apm-payout", "docs/x.md")).toBe("/guide/lifecycles#apm-payout");
    expect(guideUrl("../README.md", "docs/x.md")).toBe("/guide");
    expect(guideUrl("../README.md#test-cards", "docs/x.md")).toBe("/guide#test-cards");
    expect(guideUrl("images/dashboard.png", "docs/x.md")).toBe("/guide/images/dashboard.png");
    expect(guideUrl("docs/images/dashboard.png", "README.md")).toBe("/guide/images/dashboard.png");
    expect(guideUrl("#refunds", "docs/x.md")).toBe("#refunds");
    expect(guideUrl("/docs", "README.md")).toBe("/docs");
    expect(guideUrl("https://example.com/a.md", "README.md")).toBe("https://example.com/a.md");
    expect(guideUrl("mailto:a@example.com", "README.md")).toBe("mailto:a@example.com");
    expect(guideUrl("javascript:alert(1)", "README.md")).toBeUndefined();
    expect(guideUrl("scenarios/three-ds.yaml", "README.md")).toBe("scenarios/three-ds.yaml");
  });

  it("gives headings GitHub's ids, repeated ones numbered", () => {
    const slug = slugger();
    expect(slug("Cards and 3DS")).toBe("cards-and-3ds");
    expect(slug("`paysandbox run`: steps!")).toBe("paysandbox-run-steps");
    expect(slug("Refunds & payouts")).toBe("refunds--payouts");
    expect(slug("Cards and 3DS")).toBe("cards-and-3ds-1");
    expect(slug("snake_case (v2)")).toBe("snake_case-v2");
  });

  it("escapes code and text, drops raw HTML and unsafe links", () => {
    const { html, title } = renderMarkdown(
      "# T <i>x</i>\n\n<script>alert(1)</script>\n\n[a](javascript:alert(1)) `<b>`\n\n```html\n<img src=x onerror=alert(2)>\n```\n",
      "docs/t.md",
    );
    expect(title).toBe("T x");
    expect(html).not.toMatch(/<script|<img|<i>|<b>|javascript:/);
    expect(html).toContain("&#x3C;img src=x onerror=alert(2)>");
    expect(html).toContain('<a href="#">a</a>');
  });
});

/**
 * `GET /guide`: the guides of the repository, readable offline from the running
 * server. `/guide` is README.md with the list of docs/*.md pages, `/guide/{page}` is docs/{page}.md,
 * `/guide/images/{file}` an image of docs/images/. An unknown page or image → 404 `{errorMessage}`.
 *
 * Nothing is read or loaded before the first request (a start is measured: docs/performance.md): then
 * the files are read, the Markdown renderer (markdown.ts, its own bundle when built) is imported,
 * and each page's HTML is kept until its file changes. The pages run no script; their one
 * stylesheet is allowed by its hash, like the dashboard's.
 */
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { FC } from "hono/jsx";
import { FRAME_CSS, TopBar } from "../dashboard/layout.js";
import type { AppEnv } from "../http/env.js";
import { notFound } from "../platform/errors.js";
import { type GuideFile, GuideFiles, type PageEntry, packageRoot } from "./guide-files.js";
import type { RenderedPage } from "./markdown.js";

type Renderer = typeof import("./markdown.js");

/**
 * From src/ (tsx, vitest) the TypeScript module; built, dist/guide-markdown.cjs beside the server's
 * bundle, required: the bundle runs in vm.Script with a code cache, and cannot import() (scripts/build.mjs).
 */
async function loadRenderer(): Promise<Renderer> {
  const here = import.meta.url;
  if (/\.tsx?$/.test(here)) return (await import(new URL("./markdown.ts", here).href)) as Renderer;
  return createRequire(here)("./guide-markdown.cjs") as Renderer;
}

const CSS = `${FRAME_CSS}body{line-height:1.55}
.wrap{display:grid;grid-template-columns:15rem minmax(0,1fr);gap:1.25rem;max-width:84rem;margin:0 auto;padding:1rem 1.25rem 3rem}
@media (max-width:60rem){.wrap{grid-template-columns:1fr}}
nav.pages{font-size:.92rem}
nav.pages h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:#4a5263;margin:.4rem 0 .4rem}
nav.pages ul{list-style:none;margin:0;padding:0}
nav.pages li a{display:block;padding:.25rem .5rem;border-radius:.3rem;text-decoration:none}
nav.pages li a[aria-current=page]{background:#e6effe;font-weight:600}
article.doc{background:#fff;border:1px solid #dadee6;border-radius:.45rem;padding:1rem 1.6rem 1.6rem;min-width:0}
article.doc h1{font-size:1.6rem;margin:.4rem 0 .8rem}
article.doc h2{font-size:1.25rem;margin:1.8rem 0 .6rem;padding-bottom:.2rem;border-bottom:1px solid #e6e9ef}
article.doc h3{font-size:1.05rem;margin:1.4rem 0 .5rem}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.86em;background:#f1f3f6;padding:.05rem .25rem;border-radius:.2rem}
pre{background:#f6f7f9;border:1px solid #e1e4ea;border-radius:.3rem;padding:.6rem .8rem;overflow:auto;font-size:.85rem;line-height:1.4}
pre code{background:none;padding:0}
pre.mermaid{border-left:3px solid #9dbaf2}
table{border-collapse:collapse;display:block;overflow:auto;max-width:100%;font-size:.9rem;margin:.6rem 0}
th,td{padding:.35rem .6rem;border:1px solid #e1e4ea;text-align:left;vertical-align:top}
thead th{background:#eef1f6}
img{max-width:100%;border:1px solid #dadee6;border-radius:.3rem}
blockquote{margin:.6rem 0;padding:.2rem 1rem;border-left:3px solid #c9d3e6;color:#3c4454}
`;

/** No script at all; this one stylesheet; images of ourselves; no frames, forms or base. */
export const GUIDE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash("sha256").update(CSS).digest("base64")}'`,
  "img-src 'self' data:",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

const GuidePage: FC<{ page: RenderedPage; current: string | null; pages: PageEntry[] }> = ({ page, current, pages }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="same-origin" />
      <title>{`${page.title || "Guide"} · paysandbox guide`}</title>
      <style dangerouslySetInnerHTML={{ __html: CSS }} />
    </head>
    <body>
      <TopBar home="/guide" label="guide">
        <nav class="main" aria-label="Sections">
          <ul>
            <li>
              <a href="/">Dashboard</a>
            </li>
            <li>
              <a href="/docs">API docs</a>
            </li>
            <li>
              <a href="/guide" aria-current="page">
                Guide
              </a>
            </li>
          </ul>
        </nav>
      </TopBar>
      <div class="wrap">
        <nav class="pages" aria-label="Guide pages">
          <h2>Guide</h2>
          <ul>
            <li>
              <a href="/guide" aria-current={current === null ? "page" : undefined}>
                Overview (README)
              </a>
            </li>
            {pages.map((p) => (
              <li>
                <a href={`/guide/${p.name}`} aria-current={current === p.name ? "page" : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main">
          <article class="doc" dangerouslySetInnerHTML={{ __html: page.html }} />
        </main>
      </div>
    </body>
  </html>
);

const IMAGE_TYPES: Record<string, string> = {
  png: "image/png",
  svg: "image/svg+xml",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

/** The guide's files and renderings, made on the first request and shared by every app of the process. */
interface Guide {
  files: GuideFiles;
  renderer?: Promise<Renderer>;
  rendered: Map<string, { mtimeMs: number; page: RenderedPage }>;
}
let shared: Guide | null | undefined;

function theGuide(): Guide {
  if (shared === undefined) {
    const root = packageRoot();
    shared = root ? { files: new GuideFiles(root), rendered: new Map() } : null;
  }
  if (!shared) throw notFound("The guide is not installed with this server (no package root with README.md and docs/)");
  return shared;
}

async function render(file: GuideFile): Promise<RenderedPage> {
  const guide = theGuide();
  const kept = guide.rendered.get(file.file);
  if (kept && kept.mtimeMs === file.mtimeMs) return kept.page;
  guide.renderer ??= loadRenderer().catch((err) => {
    guide.renderer = undefined; // tried again on the next request
    throw err;
  });
  const page = (await guide.renderer).renderMarkdown(file.text, file.file);
  guide.rendered.set(file.file, { mtimeMs: file.mtimeMs, page });
  return page;
}

/** The guide's routes, on the root app and on every sandbox's (their links carry its base path, src/http/base-path.ts). */
export function registerGuide(app: OpenAPIHono<AppEnv>) {
  const guide = () => theGuide().files;

  async function send(c: Context<AppEnv>, file: GuideFile, current: string | null) {
    const page = await render(file);
    c.header("Cache-Control", "no-cache");
    c.header("Content-Security-Policy", GUIDE_CSP);
    c.header("X-Frame-Options", "DENY");
    c.header("X-Content-Type-Options", "nosniff");
    c.header("Referrer-Policy", "same-origin");
    const html = await (<GuidePage page={page} current={current} pages={guide().pages()} />).toString();
    return c.html(`<!doctype html>${html}`);
  }

  app.get("/guide", async (c) => {
    const front = guide().front();
    if (!front) throw notFound("Guide page not found: README.md");
    return send(c, front, null);
  });
  const image = (c: Context<AppEnv>, name: string) => {
    const bytes = guide().image(name);
    if (!bytes) throw notFound(`Guide image not found: ${name.slice(0, 100)}`);
    return c.body(new Uint8Array(bytes), 200, {
      "Content-Type": IMAGE_TYPES[name.slice(name.lastIndexOf(".") + 1)] ?? "application/octet-stream",
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      // an SVG opened on its own runs nothing either
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
    });
  };
  // `/guide/:page` and `/guide/images/:file` as one route: hono's RegExpRouter refuses the two side
  // by side, and the whole app would then run on its slower TrieRouter (docs/performance.md "The
  // cost account"). The split is on the path as received (an encoded slash stays in its segment),
  // the names decoded as hono decodes a parameter; any other depth is the app's 404, as before.
  app.get("/guide/:rest{.+}", async (c) => {
    const path = c.req.path;
    const raw = path.slice(path.indexOf("/guide/") + "/guide/".length);
    const rest = c.req.param("rest");
    const slash = raw.indexOf("/");
    if (slash < 0) {
      const file = guide().page(rest);
      if (!file) throw notFound(`Guide page not found: ${rest.slice(0, 100)}`);
      return send(c, file, rest);
    }
    if (raw.slice(0, slash) === "images" && raw.indexOf("/", slash + 1) < 0 && slash + 1 < raw.length) {
      return image(c, rest.slice(rest.indexOf("/") + 1));
    }
    return c.notFound();
  });
}

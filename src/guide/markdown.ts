/**
 * The guides' Markdown as HTML for `/guide`, with the unified collective's
 * parser and serializer (micromark with GitHub's extensions → mdast → hast → HTML; no network):
 * - links between the guides (`docs/x.md`, `x.md#anchor`, `../README.md`) become /guide URLs, and
 *   images under docs/images/ are served from /guide/images/;
 * - headings get GitHub's ids (`## Refund and card payout` → `#refund-and-card-payout`), so the same
 *   anchors work on GitHub and here;
 * - raw HTML in the Markdown is dropped, text and code are escaped, and a link whose scheme is not
 *   http(s) or mailto loses its href;
 * - a Mermaid block stays its source, as code (no diagram library is served).
 *
 * Built, this module is its own bundle (dist/guide-markdown.cjs, scripts/build.mjs), loaded on the
 * first /guide request, so the parser costs the server's start nothing.
 */
import { posix } from "node:path";
import type { Element, ElementContent, Root as HastRoot } from "hast";
import { toHtml } from "hast-util-to-html";
import type { Nodes, Root } from "mdast";
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { defaultHandlers, type State, toHast } from "mdast-util-to-hast";
import { gfm } from "micromark-extension-gfm";
import { IMAGE_NAME } from "./guide-files.js";

export interface Heading {
  depth: number;
  id: string;
  text: string;
}

export interface RenderedPage {
  /** The first heading's text, else "". */
  title: string;
  html: string;
  headings: Heading[];
}

/** GitHub's heading id: lower case, punctuation dropped, spaces to hyphens; a repeated one gets `-1`, `-2`... */
export function slugger(): (text: string) => string {
  const seen = new Map<string, number>();
  return (text) => {
    const base = text
      .toLowerCase()
      .trim()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const n = seen.get(base);
    seen.set(base, (n ?? -1) + 1);
    return n === undefined ? base : `${base}-${n + 1}`;
  };
}

/** The text of a Markdown node, as GitHub reads a heading's. */
function textOf(node: Nodes): string {
  if ("value" in node && typeof node.value === "string" && node.type !== "html") return node.value;
  if ("children" in node) return (node.children as Nodes[]).map(textOf).join("");
  return "";
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const SAFE_SCHEME = /^(https?|mailto):/i;

/**
 * Where a link of the page `file` (relative to the package root: `README.md`, `docs/x.md`) points
 * in the guide: another guide page, the guide's front page, an image, or unchanged (an anchor of
 * this page, an absolute URL, a server path such as `/docs`). Undefined: not a safe URL.
 */
export function guideUrl(url: string, file: string): string | undefined {
  if (url.startsWith("#") || url.startsWith("/")) return url;
  if (SCHEME.test(url)) return SAFE_SCHEME.test(url) ? url : undefined;
  const hashAt = url.indexOf("#");
  const path = hashAt < 0 ? url : url.slice(0, hashAt);
  const hash = hashAt < 0 ? "" : url.slice(hashAt);
  if (path === "") return hash;
  const target = posix.normalize(posix.join(posix.dirname(file), path));
  if (target === "README.md") return `/guide${hash}`;
  const page = /^docs\/([a-z0-9-]+)\.md$/.exec(target);
  if (page) return `/guide/${page[1]}${hash}`;
  const image = /^docs\/images\/([^/]+)$/.exec(target);
  if (image && IMAGE_NAME.test(image[1]!)) return `/guide/images/${image[1]}`;
  return url; // another file of the repository: left as written
}

/** Rewrites the links, images and link definitions of the tree for the guide. */
function rewriteLinks(node: Nodes, file: string): void {
  if (node.type === "link" || node.type === "image" || node.type === "definition") {
    node.url = guideUrl(node.url, file) ?? "#";
  }
  if ("children" in node) for (const child of node.children as Nodes[]) rewriteLinks(child, file);
}

/** A Mermaid block: its source as code, marked so a reader knows GitHub draws it. */
function mermaidBlock(state: State, node: Extract<Nodes, { type: "code" }>): Element {
  const code: Element = {
    type: "element",
    tagName: "code",
    properties: { className: ["language-mermaid"] },
    children: [{ type: "text", value: `${node.value}\n` }],
  };
  const pre: Element = { type: "element", tagName: "pre", properties: { className: ["mermaid"] }, children: [code] };
  state.patch(node, pre);
  return state.applyData(node, pre);
}

/** Gives each heading element its GitHub id. */
function addIds(root: HastRoot, headings: Heading[]): void {
  const slug = slugger();
  const visit = (children: ElementContent[] | HastRoot["children"]) => {
    for (const child of children) {
      if (child.type !== "element") continue;
      const m = /^h([1-6])$/.exec(child.tagName);
      if (m) {
        const text = hastText(child);
        const id = slug(text);
        child.properties.id = id;
        headings.push({ depth: Number(m[1]), id, text });
      } else visit(child.children);
    }
  };
  visit(root.children);
}

function hastText(node: ElementContent): string {
  if (node.type === "text") return node.value;
  if (node.type === "element") return node.children.map(hastText).join("");
  return "";
}

/** `text`, the Markdown of `file` (relative to the package root), as the guide's HTML. */
export function renderMarkdown(text: string, file: string): RenderedPage {
  const tree: Root = fromMarkdown(text, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] });
  rewriteLinks(tree, file);
  const firstHeading = tree.children.find((n) => n.type === "heading");
  const hast = toHast(tree, {
    handlers: {
      code: (state, node) => (node.lang === "mermaid" ? mermaidBlock(state, node) : defaultHandlers.code(state, node)),
    },
  }) as HastRoot;
  const headings: Heading[] = [];
  addIds(hast, headings);
  return { title: firstHeading ? textOf(firstHeading) : "", html: toHtml(hast), headings };
}

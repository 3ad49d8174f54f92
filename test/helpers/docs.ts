/**
 * The pages of the documentation (README.md and docs/*.md) and their fenced code blocks, as the
 * docs tests read them (issue 23 item 4: every block runs or is checked, or says why not).
 *
 * A block's info string decides who takes it:
 * - ```sh: run, in order with the page's other sh blocks, as one bash script against a fresh server
 *   (test/e2e/readme.e2e.test.ts);
 * - ```LANG file=NAME: written to NAME and run by the test that owns the page (FILE_BLOCK_OWNERS);
 * - ```yaml: loaded by the scenario validator; ```json: parsed; ```js and ```ts: parsed by esbuild
 *   (test/unit/docs.test.ts);
 * - ```text: output shown to the reader, nothing to run;
 * - ```mermaid on docs/lifecycles.md: generated from the lifecycles and checked by its own test;
 * - anything with `no-run` (```sh no-run, ```yaml no-run ...): installs or starts something, or
 *   needs what the tests do not have (Docker, GitHub Actions), so it is skipped on purpose.
 * Any other block fails test/unit/docs.test.ts, so examples cannot be added without a test.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./server.js";

export interface DocPage {
  /** Relative to the repository: `README.md`, `docs/cards.md`. */
  path: string;
  text: string;
}

export interface Fence {
  lang: string;
  /** The whole info string after the opening fence: `sh no-run`, `python file=conftest.py`. */
  info: string;
  body: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The `file=NAME` of the info string. */
  file?: string;
  noRun: boolean;
}

export type BlockKind = "run" | "file" | "scenario" | "json" | "syntax" | "output" | "diagram" | "skipped";

/** The pages whose `file=` blocks a test writes out and runs, and that test. */
export const FILE_BLOCK_OWNERS: Record<string, string> = {
  "docs/parallel-suites.md": "test/e2e/readme.languages.e2e.test.ts (each fixture by its own test runner)",
  "docs/webhooks.md": "test/e2e/readme.languages.e2e.test.ts (each verifier on a real delivery)",
};

/** README.md first, then docs/*.md by name. */
export function docPages(): DocPage[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .sort()
    .map((f) => `docs/${f}`);
  return ["README.md", ...docs].map((path) => ({ path, text: readFileSync(join(ROOT, path), "utf8") }));
}

export function docPage(path: string): DocPage {
  return { path, text: readFileSync(join(ROOT, path), "utf8") };
}

/**
 * The fenced blocks of a page, in order. A fence opens with ``` or ~~~ (3 or more) and closes with
 * the same character, at least as long, alone on its line (CommonMark). An unclosed fence throws.
 */
export function fences(page: DocPage): Fence[] {
  const out: Fence[] = [];
  const lines = page.text.split("\n");
  let open: { line: number; fence: string; info: string; body: string[] } | undefined;
  lines.forEach((text, i) => {
    const fence = /^(`{3,}|~{3,})/.exec(text)?.[1];
    if (!open) {
      if (fence) open = { line: i + 1, fence, info: text.slice(fence.length).trim(), body: [] };
      return;
    }
    if (fence && fence[0] === open.fence[0] && fence.length >= open.fence.length && text.trim() === fence) {
      const info = open.info;
      const lang = info.split(/\s+/)[0] ?? "";
      out.push({
        lang,
        info,
        body: `${open.body.join("\n")}\n`,
        line: open.line,
        file: /\bfile=(\S+)/.exec(info)?.[1],
        noRun: /\bno-run\b/.test(info),
      });
      open = undefined;
    } else {
      open.body.push(text);
    }
  });
  if (open) throw new Error(`${page.path}:${open.line}: the code block opened here is never closed`);
  return out;
}

/** Who takes a block (see the header); undefined: nobody, which the docs test refuses. */
export function classify(page: DocPage, f: Fence): BlockKind | undefined {
  if (f.noRun) return "skipped";
  if (f.file) return "file";
  switch (f.lang) {
    case "sh":
      return "run";
    case "yaml":
      return "scenario";
    case "json":
      return "json";
    case "js":
    case "ts":
      return "syntax";
    case "text":
      return "output";
    case "mermaid":
      return page.path === "docs/lifecycles.md" ? "diagram" : undefined;
    default:
      return undefined;
  }
}

/** The page's ```sh blocks that run, in order. */
export function runnableBlocks(page: DocPage): string[] {
  return fences(page)
    .filter((f) => classify(page, f) === "run")
    .map((f) => f.body);
}

/** The page's `file=` blocks of one language: file name → content. */
export function fileBlocks(page: DocPage, lang: string): Map<string, string> {
  return new Map(
    fences(page)
      .filter((f) => f.file && f.lang === lang && !f.noRun)
      .map((f) => [f.file as string, f.body]),
  );
}

/**
 * The pages of the documentation (README.md and docs/*.md) and their fenced code blocks, as the
 * docs tests read them: every block runs or is checked, or says why not.
 *
 * A block's info string decides who takes it:
 * - ```sh: run, in order with the page's other sh blocks, as one bash script against a fresh server
 *   (test/e2e/readme.e2e.test.ts);
 * - ```LANG file=NAME: written to NAME and run by the test that owns the page (FILE_BLOCK_OWNERS);
 * - ```yaml: loaded by the scenario validator; ```json: parsed; ```js and ```ts: parsed by esbuild
 *   (test/unit/docs.test.ts);
 * - ```text: output shown to the reader, nothing to run;
 * - ```mermaid on docs/lifecycles.md: generated from the lifecycles and checked by its own test; on
 *   docs/architecture.md: drawn from the imports by scripts/diagram.mjs, checked by `npm run lint:deps`;
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
  "docs/snapshots.md": "test/e2e/readme.languages.e2e.test.ts (each fixture by its own test runner)",
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
/** The pages whose ```mermaid blocks are generated from the code and checked against it. */
const DIAGRAM_PAGES = new Set(["docs/lifecycles.md", "docs/architecture.md"]);

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
      return DIAGRAM_PAGES.has(page.path) ? "diagram" : undefined;
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

/** The page's ```sh blocks that run, in order, with their lines. */
export function runnableFences(page: DocPage): Fence[] {
  return fences(page).filter((f) => classify(page, f) === "run");
}

/*
 * Shown answers. In a ```sh block, the `# ` lines right after a command show what it prints:
 * - an answer is the run of lines starting with `# ` (at the start of the line) that follows a
 *   command; it shows everything the commands since the previous answer (or the block's start)
 *   print, stdout and stderr together. A block's last commands may print without an answer shown:
 *   nothing is compared then;
 * - `...` stands for any text (ids such as `tx_...`, times such as `12:00:00...Z`, the rest of a
 *   JSON object `,...}`, whole lines);
 * - whitespace, line breaks and indentation included, matches any whitespace or none (a long JSON
 *   answer is wrapped and spaced for the page);
 * - a remark is not an answer: 3 or more spaces then `(...)` at the end of an answer line
 *   (`# 2   (the next one 4 minutes later)`), or lines from one starting with `# (` to the one
 *   ending with `)` (`# (the answer: {...})`), say what the output means, and are not compared.
 */

export interface ShownAnswer {
  /** 1-based line of the page where the answer starts. */
  line: number;
  /** The answer's lines, `# ` and remarks taken off. */
  lines: string[];
}

/** An answer line: `#` then a space or nothing, at the start of the line. */
const ANSWER_LINE = /^#( |$)/;
/** A remark at the end of an answer line: 3+ spaces, then parentheses to the end. */
const TRAILING_REMARK = / {3,}\(.*\)\s*$/;

/**
 * The page's sh blocks as one bash script that prints a marker where each answer is shown, and the
 * answers by marker: the output between a marker and the one before it is that answer's.
 */
export function instrumentedScript(page: DocPage): { script: string; answers: Map<number, ShownAnswer> } {
  const answers = new Map<number, ShownAnswer>();
  const out: string[] = [`${MARK_FN}`];
  let marks = 0;
  const mark = () => {
    marks++;
    out.push(`__answer_mark ${marks}`);
    return marks;
  };
  for (const fence of runnableFences(page)) {
    mark(); // what the page printed before this block is nobody's answer
    const body = fence.body.replace(/\n$/, "").split("\n");
    let i = 0;
    while (i < body.length) {
      const text = body[i] ?? "";
      if (!ANSWER_LINE.test(text)) {
        out.push(text);
        i++;
        continue;
      }
      const start = i;
      const lines: string[] = [];
      let inRemark = false;
      for (; i < body.length && ANSWER_LINE.test(body[i] ?? ""); i++) {
        const shown = (body[i] ?? "").slice(2);
        if (!inRemark && shown.startsWith("(")) inRemark = true;
        if (inRemark) {
          if (shown.trimEnd().endsWith(")")) inRemark = false;
          continue;
        }
        lines.push(shown.replace(TRAILING_REMARK, "").trimEnd());
      }
      if (inRemark) throw new Error(`${page.path}:${fence.line + 1 + start}: a remark "# (" that no line closes with ")"`);
      const before = out[out.length - 1] ?? "";
      if (/\\$/.test(before))
        throw new Error(`${page.path}:${fence.line + 1 + start}: an answer inside a command (the line before ends in \\)`);
      const id = mark();
      if (lines.length > 0) answers.set(id, { line: fence.line + 1 + start, lines });
      // the answer's lines stay, as comments, so the script's lines read as the page's
      for (let j = start; j < i; j++) out.push(body[j] ?? "");
    }
  }
  mark();
  return { script: out.join("\n"), answers };
}

/** Prints a marker on a line of its own (after whatever the last command left unterminated). */
const MARK_FN = `__answer_mark() { printf '\\n@@docs-answer %s@@\\n' "$1"; }`;
const MARKER = /\n@@docs-answer (\d+)@@\n/;

/** The script's output cut at its markers: marker → what was printed since the marker before it. */
export function outputByMarker(output: string): Map<number, string> {
  const parts = `\n${output}`.split(MARKER);
  const byMarker = new Map<number, string>();
  // parts: [before the first marker, id1, between 1 and 2, id2, ...]
  for (let k = 1; k < parts.length; k += 2) byMarker.set(Number(parts[k]), parts[k - 1] ?? "");
  return byMarker;
}

/** The shown answer as a regular expression over the real output, by the rules above. */
export function answerPattern(lines: string[]): RegExp {
  const literal = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const line = (text: string) =>
    text
      .trim()
      .split("...")
      .map((piece) => piece.split(/\s+/).map(literal).join("\\s*"))
      .join("[\\s\\S]*?");
  return new RegExp(`^\\s*${lines.map(line).join("\\s*")}\\s*$`);
}

export function answerMatches(lines: string[], output: string): boolean {
  return answerPattern(lines).test(output);
}

/** GitHub's anchor of a heading: its text, lowercased, punctuation but `-` and `_` dropped, spaces → `-`. */
export function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1") // a link counts by its text
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The lines of a page outside its fenced blocks, with their 1-based numbers. */
export function proseLines(page: DocPage): Array<{ text: string; line: number }> {
  const out: Array<{ text: string; line: number }> = [];
  let open: string | undefined;
  page.text.split("\n").forEach((text, i) => {
    const fence = /^(`{3,}|~{3,})/.exec(text)?.[1];
    if (open === undefined && fence) open = fence;
    else if (open !== undefined && fence && fence[0] === open[0] && fence.length >= open.length && text.trim() === fence)
      open = undefined;
    else if (open === undefined) out.push({ text, line: i + 1 });
  });
  return out;
}

/** The anchors of a page's headings, duplicates numbered as GitHub does (`x`, `x-1`, `x-2`). */
export function anchors(page: DocPage): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text } of proseLines(page)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!m) continue;
    const base = slug(m[1] ?? "");
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

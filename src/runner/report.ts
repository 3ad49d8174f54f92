/**
 * What `paysandbox run` prints and writes (docs/run.md): one line per step (pass/fail, ms, and on
 * failure expected vs actual and the response trimmed), `N passed, M failed` last; `--reporter json`;
 * `--junit OUT.xml` (one testsuite per file, one testcase per step, in the Ant/Jenkins JUnit format
 * CI systems read).
 */
import { hostname } from "node:os";
import type { FileResult, StepResult } from "./run.js";

export interface Totals {
  passed: number;
  failed: number;
  skipped: number;
  /** Files that could not run at all (target refused them). */
  broken: number;
}

export function totals(results: FileResult[]): Totals {
  const t: Totals = { passed: 0, failed: 0, skipped: 0, broken: 0 };
  for (const f of results) {
    if (f.error) t.broken++;
    else for (const s of f.steps) t[s.status]++;
  }
  return t;
}

/** Exit 0 when every step passed, 1 when any failed (or a file could not run). */
export const exitCodeOf = (t: Totals): 0 | 1 => (t.failed > 0 || t.broken > 0 ? 1 : 0);

const ms = (n: number) => `${Math.round(n)} ms`;
const show = (v: unknown) => (v === undefined ? "nothing" : JSON.stringify(v));

/** The file's header line. */
export const fileLine = (f: { file: string; scenario: string }, label: string) => `${f.file} (${f.scenario}, ${label})`;

/** One step's line, plus the failure's detail lines. */
export function stepLines(s: StepResult): string[] {
  if (s.status === "skipped") return [`  skip  [${s.index}] ${s.name}`];
  const word = s.status === "passed" ? "pass" : "FAIL";
  const what = s.summary && s.summary !== s.name ? `  ${s.summary}` : "";
  const lines = [`  ${word}  [${s.index}] ${s.name}${what}  (${ms(s.ms)})`];
  if (s.status === "failed") {
    lines.push(`        ${s.message ?? "failed"}`);
    if (s.expected !== undefined || s.actual !== undefined) {
      lines.push(`        expected: ${show(s.expected)}`, `        actual:   ${show(s.actual)}`);
    }
    if (s.response) lines.push(`        response: ${s.response}`);
  }
  return lines;
}

/** The closing lines: skipped steps (when any) and `N passed, M failed`, always last. */
export function summaryLines(t: Totals): string[] {
  const lines: string[] = [];
  if (t.broken > 0) lines.push(`${t.broken} file(s) could not run`);
  if (t.skipped > 0) lines.push(`${t.skipped} step(s) skipped after a failure`);
  lines.push(`${t.passed} passed, ${t.failed} failed`);
  return lines;
}

/** `--reporter json`: the whole run as one document. */
export function jsonReport(results: FileResult[]): string {
  const t = totals(results);
  return JSON.stringify(
    {
      passed: t.passed,
      failed: t.failed,
      skipped: t.skipped,
      files: results.map((f) => ({
        file: f.file,
        scenario: f.scenario,
        ms: Math.round(f.ms),
        ...(f.error ? { error: f.error } : {}),
        ...(f.sandbox ? { sandbox: f.sandbox } : {}),
        ...(f.note ? { note: f.note } : {}),
        steps: f.steps.map((s) => ({ ...s, ms: Math.round(s.ms) })),
      })),
    },
    null,
    2,
  );
}

/** XML 1.0 text: control characters it forbids are dropped, markup characters escaped. */
const xml = (s: string) =>
  [...s]
    .filter((c) => {
      const code = c.charCodeAt(0);
      return code >= 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
    })
    .join("")
    .replace(/[<>&"']/g, (c) => `&${{ "<": "lt", ">": "gt", "&": "amp", '"': "quot", "'": "apos" }[c]};`);
const seconds = (n: number) => (n / 1000).toFixed(3);

/**
 * The JUnit XML report: `<testsuites>`, one `<testsuite>` per file (name = scenario name, package =
 * file), one `<testcase>` per step (classname = scenario name), `<failure message type>` with the
 * expected/actual lines as text, `<skipped/>` for the steps after a failure; a file that could not
 * run has an `<error>` on each step. `timestamp` is the real start of the run (ISO, no zone).
 */
export function junitReport(results: FileResult[], startedAtIso: string): string {
  const t = totals(results);
  const total = results.reduce((n, f) => n + f.steps.length, 0);
  const time = seconds(results.reduce((n, f) => n + f.ms, 0));
  const host = xml(hostname() || "localhost");
  const stamp = startedAtIso.replace(/\.\d+Z$|Z$/, "");
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="paysandbox run" tests="${total}" failures="${t.failed}" errors="${results.reduce((n, f) => n + (f.error ? f.steps.length : 0), 0)}" time="${time}">`,
  ];
  results.forEach((f, id) => {
    const failures = f.steps.filter((s) => s.status === "failed").length;
    const skipped = f.steps.filter((s) => s.status === "skipped" && !f.error).length;
    const errors = f.error ? f.steps.length : 0;
    out.push(
      `  <testsuite name="${xml(f.scenario)}" package="${xml(f.file)}" id="${id}" hostname="${host}" timestamp="${stamp}" tests="${f.steps.length}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${seconds(f.ms)}">`,
      "    <properties>",
      `      <property name="file" value="${xml(f.file)}"/>`,
      ...(f.sandbox ? [`      <property name="sandbox" value="${xml(f.sandbox.baseUrl)}"/>`] : []),
      "    </properties>",
    );
    for (const s of f.steps) {
      const head = `    <testcase name="${xml(`[${s.index}] ${s.name}`)}" classname="${xml(f.scenario)}" time="${seconds(s.ms)}"`;
      if (f.error) {
        out.push(
          `${head}>`,
          `      <error message="${xml(f.error)}" type="FileError">${xml(f.error)}</error>`,
          "    </testcase>",
        );
      } else if (s.status === "failed") {
        const text = stepLines(s)
          .slice(1)
          .map((l) => l.trim())
          .join("\n");
        out.push(
          `${head}>`,
          `      <failure message="${xml(s.message ?? "failed")}" type="StepFailure">${xml(`${s.summary}\n${text}`)}</failure>`,
          "    </testcase>",
        );
      } else if (s.status === "skipped") {
        out.push(`${head}>`, '      <skipped message="skipped after a failed step"/>', "    </testcase>");
      } else {
        out.push(`${head}/>`);
      }
    }
    out.push("    <system-out/>", "    <system-err/>", "  </testsuite>");
  });
  out.push("</testsuites>", "");
  return out.join("\n");
}

/**
 * Each file's lines together, files in the order given, while they run side by side: the first
 * unfinished file's lines go out as they come; a later file's wait until every file before it ended.
 */
export class InFileOrder {
  private live = 0;
  private readonly held: string[][];
  private readonly ended: boolean[];

  constructor(
    private readonly files: number,
    private readonly emit: (text: string) => void,
  ) {
    this.held = Array.from({ length: files }, () => []);
    this.ended = Array.from({ length: files }, () => false);
  }

  isLive(file: number): boolean {
    return file === this.live;
  }

  write(file: number, text: string): void {
    if (file === this.live) this.emit(text);
    else this.held[file]?.push(text);
  }

  end(file: number): void {
    this.ended[file] = true;
    while (this.live < this.files && this.ended[this.live]) {
      this.live++;
      const held = this.held[this.live];
      if (held && held.length > 0) this.emit(held.splice(0).join(""));
    }
  }
}

/**
 * The documentation (README.md and docs/*.md) holds together, without a server:
 * - every fenced block is taken by a test or says why not (test/helpers/docs.ts): an example cannot
 *   be added that nothing runs; the yaml blocks load as scenario files, the json blocks parse, the
 *   js and ts sketches parse;
 * - every link between the pages resolves: the file exists in the repository, and a `#anchor`
 *   names a heading of its page by GitHub's slug rules; no page links outside the repository (an
 *   example's localhost aside).
 * - the rule by which a shown answer is compared with the real one (test/helpers/docs.ts), on
 *   examples; every page's sh blocks cut into commands and answers.
 * The sh blocks run in test/e2e/readme.e2e.test.ts, the file= blocks in readme.languages.e2e.test.ts.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { transformSync } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { loadScenarioFile } from "../../src/runner/load.js";
import { citationsIn, OUTSIDE } from "../helpers/citations.js";
import {
  anchors,
  answerMatches,
  classify,
  type DocPage,
  docPages,
  FILE_BLOCK_OWNERS,
  fences,
  instrumentedScript,
  outputByMarker,
  proseLines,
  slug,
} from "../helpers/docs.js";
import { ROOT } from "../helpers/server.js";

const pages = docPages();
const work = mkdtempSync(join(tmpdir(), "paysandbox-docs-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every link of a page's prose (inline code left out): `[text](target)`, `<http://...>` and bare URLs. */
function links(page: DocPage): Array<{ target: string; line: number }> {
  const out: Array<{ target: string; line: number }> = [];
  for (const { text, line } of proseLines(page)) {
    const prose = text.replace(/`[^`]*`/g, "");
    for (const m of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ target: m[1] ?? "", line });
    const rest = prose.replace(/\]\([^)]*\)/g, "]");
    for (const m of rest.matchAll(/<?(https?:\/\/[^\s<>)]+)>?/g)) out.push({ target: m[1] ?? "", line });
  }
  return out;
}

describe("docs: every code block is run, checked, or says why not", () => {
  it("no block is left to nobody (fence it as sh, text, or `no-run`; or give a test the page: FILE_BLOCK_OWNERS)", () => {
    const unclassified: string[] = [];
    for (const page of pages)
      for (const f of fences(page)) {
        const kind = classify(page, f);
        if (!kind) unclassified.push(`${page.path}:${f.line}: \`\`\`${f.info || "(no language)"}`);
        if (kind === "file" && !FILE_BLOCK_OWNERS[page.path])
          unclassified.push(`${page.path}:${f.line}: \`\`\`${f.info}: no test writes out this page's file= blocks`);
      }
    expect(unclassified).toEqual([]);
  });

  it("the pages that FILE_BLOCK_OWNERS names have file= blocks", () => {
    for (const path of Object.keys(FILE_BLOCK_OWNERS)) {
      const page = pages.find((p) => p.path === path);
      expect(page, path).toBeDefined();
      expect(fences(page as DocPage).filter((f) => f.file).length, path).toBeGreaterThan(0);
    }
  });

  it("every yaml block loads as a scenario file (the validator of `paysandbox run` and the server)", () => {
    let n = 0;
    for (const page of pages)
      fences(page).forEach((f, i) => {
        if (classify(page, f) !== "scenario") return;
        const file = join(work, `${page.path.replace(/\W/g, "-")}-${i}.yaml`);
        writeFileSync(file, f.body);
        const loaded = loadScenarioFile(file);
        expect(loaded.ok ? "ok" : loaded.message, `${page.path}:${f.line}`).toBe("ok");
        n++;
      });
    expect(n).toBeGreaterThan(2);
  });

  it("every json block parses", () => {
    for (const page of pages)
      for (const f of fences(page))
        if (classify(page, f) === "json") expect(() => JSON.parse(f.body), `${page.path}:${f.line}`).not.toThrow();
  });

  it("every js and ts sketch parses", () => {
    for (const page of pages)
      for (const f of fences(page)) {
        if (classify(page, f) !== "syntax") continue;
        const loader = f.lang === "ts" ? "ts" : "js";
        expect(() => transformSync(f.body, { loader, format: "esm" }), `${page.path}:${f.line}`).not.toThrow();
      }
  });
});

describe("docs: links", () => {
  it("GitHub's slugs", () => {
    expect(slug("Control plane `/_sandbox` and time travel")).toBe("control-plane-_sandbox-and-time-travel");
    expect(slug("QR pay-ins (UPI_QR, PIX_QR)")).toBe("qr-pay-ins-upi_qr-pix_qr");
    expect(slug("Scripted scenarios: `paysandbox run`")).toBe("scripted-scenarios-paysandbox-run");
    expect([...anchors({ path: "x.md", text: "# A\n\n## B\n\n```sh\n## not a heading\n```\n\n## B\n## B\n" })]).toEqual([
      "a",
      "b",
      "b-1",
      "b-2",
    ]);
  });

  it("every relative link resolves to a file of the repository, and every #anchor to a heading", () => {
    const broken: string[] = [];
    const byPath = new Map(pages.map((p) => [p.path, p]));
    for (const page of pages)
      for (const { target, line } of links(page)) {
        if (/^https?:/.test(target)) continue;
        const [path = "", anchor] = target.split("#");
        const file = path === "" ? page.path : relative(ROOT, resolve(ROOT, dirname(page.path), decodeURIComponent(path)));
        const where = `${page.path}:${line}: ${target}`;
        if (file.startsWith("..") || !existsSync(join(ROOT, file))) {
          broken.push(`${where}: no such file in the repository`);
          continue;
        }
        if (anchor === undefined) continue;
        const linked = byPath.get(file);
        if (!linked || statSync(join(ROOT, file)).isDirectory())
          broken.push(`${where}: an anchor into a file that is not a page`);
        else if (!anchors(linked).has(anchor))
          broken.push(`${where}: no heading with that anchor (has: ${[...anchors(linked)].join(", ")})`);
      }
    expect(broken).toEqual([]);
  });

  it("no page links outside the repository (a localhost example aside)", () => {
    const outside: string[] = [];
    for (const page of pages)
      for (const { target, line } of links(page))
        if (/^https?:/.test(target) && !/^https?:\/\/(localhost|127\.0\.0\.1)(:\d+)?(\/|$)/.test(target))
          outside.push(`${page.path}:${line}: ${target}`);
    expect(outside).toEqual([]);
  });

  it("every page is reachable from the README's table of contents", () => {
    const readme = pages.find((p) => p.path === "README.md") as DocPage;
    const linked = new Set(links(readme).map((l) => l.target.split("#")[0]));
    const missing = pages.filter((p) => p.path.startsWith("docs/") && !linked.has(p.path)).map((p) => p.path);
    expect(missing).toEqual([]);
  });
});

describe("docs: shown answers (the rule of test/helpers/docs.ts)", () => {
  it("`...` stands for any text: ids, times, the rest of an object, whole lines", () => {
    expect(
      answerMatches(
        ['{"transactionId":"tx_...","transactionStatus":"SUCCEED"}'],
        '{"transactionId":"tx_0V8N98","transactionStatus":"SUCCEED"}',
      ),
    ).toBe(true);
    expect(
      answerMatches(['{"now":"2026-01-15T12:03:...Z","ran":{...}}'], '{"now":"2026-01-15T12:03:01.645Z","ran":{"ticks":0}}'),
    ).toBe(true);
    expect(answerMatches(["a", "...", "z"], "a\nb\nc\nz")).toBe(true);
    expect(answerMatches(['{"a":1,...}'], '{"a":1,"b":2}')).toBe(true);
  });

  it("whitespace and line breaks match any whitespace or none: a JSON answer wrapped for the page", () => {
    expect(answerMatches(['{"a":1,', '  "b":2}'], '{"a":1,"b":2}')).toBe(true);
    expect(answerMatches(["  - name: x", "  - name: y"], "  - name: x\n  - name: y\n")).toBe(true);
    expect(answerMatches(["#2     12:00Z  clock"], "#2      12:00Z  clock")).toBe(true);
  });

  it("anything else must be the same, the whole output: a drift fails", () => {
    expect(answerMatches(['{"status":"pending","nextAttemptAt":"2026-...Z"}'], '{"status":"pending","nextAttemptAt":null}')).toBe(
      false,
    );
    expect(answerMatches(["2"], "20")).toBe(false);
    expect(answerMatches(['{"a":1}'], '{"a":1}{"b":2}')).toBe(false); // an answer shows everything printed
    expect(answerMatches(["tx_..."], "")).toBe(false);
  });

  it("answers follow their command; remarks are not compared; the output is cut at the answers", () => {
    const page: DocPage = {
      path: "x.md",
      text: [
        "```sh",
        "echo one",
        "# one   (a remark at the end of a line)",
        "echo two; echo three",
        "# two",
        "# three",
        "# (a remark over",
        "#  two lines)",
        "X=$(echo hidden)",
        "# (a remark alone: nothing compared)",
        "echo unshown",
        "```",
      ].join("\n"),
    };
    const { script, answers } = instrumentedScript(page);
    expect([...answers.values()]).toEqual([
      { line: 3, lines: ["one"] },
      { line: 5, lines: ["two", "three"] },
    ]);
    const output = execFileSync("bash", ["-c", script], { encoding: "utf8" });
    const byMarker = outputByMarker(output);
    for (const [id, answer] of answers) expect(answerMatches(answer.lines, byMarker.get(id) ?? "")).toBe(true);
  });

  it("every page's sh blocks cut into commands and answers (an answer never sits inside a command)", () => {
    let shown = 0;
    for (const page of pages) shown += instrumentedScript(page).answers.size;
    expect(shown).toBeGreaterThan(50);
  });
});

describe("docs: install instructions work as written", () => {
  const { version } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };

  it("no page installs paysandbox from the npm registry, where it is not published: from the tarball `npm pack` writes", () => {
    const offered: string[] = [];
    for (const page of pages)
      for (const m of page.text.matchAll(/npm\s+(?:install|i|add)\b[^`#\n]*/g)) {
        const at = m.index ?? 0;
        const saysWhy = /E404/.test(page.text.slice(at, at + 120)); // "`npm install paysandbox` answers E404"
        if (/\bpaysandbox\b/.test(m[0]) && !/paysandbox-[\d.]+\.tgz/.test(m[0]) && !saysWhy)
          offered.push(`${page.path}:${page.text.slice(0, at).split("\n").length}: ${m[0].trim()}`);
      }
    expect(offered).toEqual([]);
  });

  it(`every tarball named is the one \`npm pack\` writes for this version (paysandbox-${version}.tgz)`, () => {
    const named: string[] = [];
    for (const page of pages) for (const m of page.text.matchAll(/paysandbox-(\d[\w.-]*)\.tgz/g)) named.push(m[1] ?? "");
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((v) => v !== version)).toEqual([]);
  });
});

describe("docs: self-contained", () => {
  it("no page cites a document the repository does not hold: what it stands for is on a docs page, linked", () => {
    const cited = pages.flatMap((page) => citationsIn(page.path, page.text));
    expect(cited).toEqual([]);
  });

  it("the rule catches each form it is meant for", () => {
    // each form built from parts, so that this file does not itself cite anything
    const section = "\u00a7";
    const forms = [
      `interface ${section}4.3`,
      `(${section}6.2)`,
      `${"CONT"}RACT ${section}7`,
      `${"issue"} 19's pass`,
      `${"interface"} section 6`,
      `${"house style"} 3`,
    ];
    for (const form of forms) expect(form.match(OUTSIDE), form).not.toBeNull();
    expect("the live interface names none; a contract for browsers".match(OUTSIDE)).toBeNull();
  });

  it("one page says what gateway is simulated and how faithfully, linked from the README", () => {
    const gateway = pages.find((p) => p.path === "docs/gateway.md");
    expect(gateway).toBeDefined();
    const headings = anchors(gateway as DocPage);
    for (const h of ["areas", "authentication", "callbacks", "how-faithful", "exact", "simulated", "known-differences"])
      expect(headings, h).toContain(h);
  });
});

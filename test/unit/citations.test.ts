/**
 * The code cites only what the repository holds: no comment, test name or message in src/, test/,
 * bench/, scripts/ or bin/ points at a section of a document outside it (the rule and its forms:
 * test/helpers/citations.ts; README.md and docs/ are held to it in test/unit/docs.test.ts); and every
 * page of docs/ it cites (`docs/webhooks.md#retries`) exists, with a heading of that anchor.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { citationsIn } from "../helpers/citations.js";
import { anchors, docPage } from "../helpers/docs.js";

const ROOT = resolve(import.meta.dirname, "../..");
const FOLDERS = ["src", "test", "bench", "scripts", "bin"];
const TEXT = /\.(?:[cm]?[jt]sx?|json|ya?ml|md|sh)$/;

function files(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules" && entry.name !== "__screenshots__") out.push(...files(path));
    } else if (TEXT.test(entry.name)) out.push(path);
  }
  return out;
}

describe("code: self-contained citations", () => {
  it("no file in src/, test/, bench/, scripts/ or bin/ cites a document the repository does not hold", () => {
    const cited: string[] = [];
    let read = 0;
    for (const folder of FOLDERS)
      for (const path of files(join(ROOT, folder))) {
        read++;
        cited.push(...citationsIn(relative(ROOT, path), readFileSync(path, "utf8")));
      }
    expect(read).toBeGreaterThan(100);
    expect(cited).toEqual([]);
  });

  it("the rule catches a citation in a comment", () => {
    const section = "\u00a7";
    expect(citationsIn("x.ts", `// the callback (${"interface"} ${section}6.2)\nconst a = 1;`)).toHaveLength(1);
    expect(citationsIn("x.ts", `/** measured (${"issue"} 19: 3%) */`)).toHaveLength(1);
    expect(citationsIn("x.ts", "// the callback (docs/webhooks.md)")).toEqual([]);
  });

  it("every docs/ page a file of src/, test/, bench/, scripts/ or bin/ cites exists, and so does its #anchor", () => {
    const broken: string[] = [];
    const known = new Map<string, Set<string> | undefined>();
    const anchorsOf = (page: string) => {
      if (!known.has(page)) known.set(page, existsSync(join(ROOT, page)) ? anchors(docPage(page)) : undefined);
      return known.get(page);
    };
    let cited = 0;
    for (const folder of FOLDERS)
      for (const path of files(join(ROOT, folder))) {
        const text = readFileSync(path, "utf8");
        for (const { page, anchor, line } of docCitations(text)) {
          cited++;
          const heads = anchorsOf(page);
          const where = `${relative(ROOT, path)}:${line}: ${page}${anchor === undefined ? "" : `#${anchor}`}`;
          if (heads === undefined) broken.push(`${where}: no such page`);
          else if (anchor !== undefined && !heads.has(anchor)) broken.push(`${where}: no heading with that anchor`);
        }
      }
    expect(cited).toBeGreaterThan(200);
    expect(broken).toEqual([]);
  });

  it("the rule reads a citation's page and anchor, and only docs/ pages", () => {
    expect(docCitations("// see docs/webhooks.md#retries, then docs/api.md.\n// docs/x.mdx is not one, nor docs/x.md")).toEqual([
      { page: "docs/webhooks.md", anchor: "retries", line: 1 },
      { page: "docs/api.md", anchor: undefined, line: 1 },
    ]);
  });
});

/**
 * The docs/ pages a text cites, with the anchor when it names one (`docs/<page>.md#<anchor>`). A
 * one-letter name (`docs/x.md`) stands for any page in an example, and is no citation.
 */
function docCitations(text: string): Array<{ page: string; anchor: string | undefined; line: number }> {
  const out: Array<{ page: string; anchor: string | undefined; line: number }> = [];
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(/(?<![\w/.-])docs\/([a-z0-9-]{2,})\.md(?![\w])(?:#([a-z0-9_-]+))?/g)) {
      out.push({ page: `docs/${m[1]}.md`, anchor: m[2], line: i + 1 });
    }
  });
  return out;
}

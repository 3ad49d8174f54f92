/**
 * The README and every docs/ page stand alone, their examples work, and the answers they show are
 * the real ones (docs/developing.md, "Examples"):
 * each page's ```sh blocks, in order, as one bash script against a real server of its own on a
 * fresh database; the README's (which starts with a reset) then again after a restart on the same,
 * reused, database. Pages run side by side, a few at once. Conventions, stated in docs/developing.md ("Examples"):
 * - ```sh blocks run; ```sh no-run blocks (installing, starting servers, Docker) are skipped;
 * - a page needs nothing another page set: its first block defines `json`, `$TOKEN` and whatever
 *   else it uses;
 * - `localhost:8080` is the server (the test substitutes its own port);
 * - every `curl` fails the run on an HTTP error (the test wraps it with --fail-with-body), except
 *   a line that shows an error on purpose, which ends in `|| true`;
 * - ids are captured into variables (`TX=$(curl ... | json transactionId)`), never left as `tx_...`;
 * - the `# ` lines right after a command show what it prints, and are compared with the real
 *   output (the matching rule, `...` for any text and remarks in parentheses: test/helpers/docs.ts);
 *   a drift fails with the page's line, the answer shown and the real one.
 * What the other blocks are, and who checks them: test/helpers/docs.ts.
 */
import { execFile } from "node:child_process";
import { describe, expect, it } from "vitest";
import { answerMatches, docPages, fences, instrumentedScript, outputByMarker, runnableBlocks } from "../helpers/docs.js";
import { ROOT, startServer, tempDbPath } from "../helpers/server.js";

/** Pages run at once: each is a server and a shell of curls; two cores. */
const AT_ONCE = 3;

function runScript(script: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", script], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** At most `n` of the callers inside at once. */
function limiter(n: number) {
  let active = 0;
  const waiting: Array<() => void> = [];
  return async <T>(fn: () => Promise<T>): Promise<T> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fn();
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
}

const pages = docPages();
const slot = limiter(AT_ONCE);

describe("README and docs/ examples", () => {
  it("every code fence is closed before the next section, on every page: no heading renders inside a code block", () => {
    for (const page of pages) {
      let open: { line: number; fence: string } | undefined;
      page.text.split("\n").forEach((text, i) => {
        const fence = /^(`{3,}|~{3,})/.exec(text)?.[1];
        if (fence && (!open || (fence[0] === open.fence[0] && fence.length >= open.fence.length && text.trim() === fence))) {
          open = open ? undefined : { line: i + 1, fence };
        } else if (open && /^#{2,3} /.test(text)) {
          throw new Error(`${page.path}:${i + 1}: heading "${text}" inside the code block opened at line ${open.line}`);
        }
      });
      expect(open, `${page.path}: the code block opened at line ${open?.line} is never closed`).toBeUndefined();
    }
  });

  it("the README and the pages that show the API have examples that run", () => {
    const withSh = pages.filter((p) => runnableBlocks(p).length > 0).map((p) => p.path);
    expect(withSh).toEqual(expect.arrayContaining(["README.md", "docs/getting-started.md", "docs/cards.md"]));
    expect(pages.length).toBeGreaterThan(10);
    for (const p of pages) fences(p); // every fence closes
  });

  for (const page of pages) {
    const blocks = runnableBlocks(page);
    if (blocks.length === 0) continue;
    // the README resets the sandbox first, so it runs again on the database it left; a page runs once, on a fresh one
    const passes = page.path === "README.md" ? ["fresh", "reused"] : ["fresh"];
    it.concurrent(`${page.path}: every sh block runs in order, on a ${passes.join(" and on a ")} database`, async ({
      expect,
    }) => {
      const commands = blocks
        .join("\n")
        .split("\n")
        .filter((l) => !l.trim().startsWith("#"));
      expect(commands.join("\n")).not.toMatch(/\b(tx|tok|sub)_\.\.\./);
      const { script: blocksScript, answers } = instrumentedScript(page);
      await slot(async () => {
        const dbPath = tempDbPath();
        for (const pass of passes) {
          const server = await startServer({ dbPath });
          try {
            const host = server.url.replace(/^http:\/\//, "");
            const script = [
              "set -eo pipefail",
              "exec 2>&1", // an answer shows what the reader's terminal shows: stdout and stderr
              'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
              blocksScript.replaceAll("localhost:8080", host),
            ].join("\n");
            const { code, output } = await runScript(script);
            const real = outputByMarker(output);
            const drifts: string[] = [];
            for (const [id, answer] of answers) {
              const printed = real.get(id);
              if (printed === undefined) continue; // the script stopped before it: the exit code below says why
              // what the reader's `curl -s` prints: without the line the test's --show-error adds on an HTTP error
              // and the server named as the reader names it (the script says 127.0.0.1: the test's server listens there)
              const got = printed
                .replace(/^curl: \(22\) The requested URL returned error: \d+\n/gm, "")
                .replaceAll(host, `localhost:${server.port}`);
              const shown = answer.lines.map((l) => l.replaceAll("localhost:8080", `localhost:${server.port}`));
              if (!answerMatches(shown, got))
                drifts.push(
                  `${page.path}:${answer.line} (${pass} database): the answer shown is not the real one\n` +
                    `  shown:\n${indent(shown.join("\n"))}\n  real:\n${indent(got.trim())}`,
                );
            }
            expect(code, `${page.path}, ${pass} database:\n${output}`).toBe(0);
            expect(drifts.join("\n\n"), `${page.path}: ${drifts.length} shown answer(s) drifted`).toBe("");
          } finally {
            await server.stop();
          }
        }
      });
    }, 240_000);
  }
});

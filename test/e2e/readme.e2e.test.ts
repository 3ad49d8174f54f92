/**
 * The README stands alone and its examples work (CONTRACT §1): every ```sh block of README.md,
 * in order, as one bash script against the real server, first on a fresh database, then again
 * after a restart on the same (reused) one. Conventions, stated in the README ("Examples"):
 * - ```sh blocks run; ```sh no-run blocks (installing, starting servers, Docker) are skipped;
 * - `localhost:8080` is the server (the test substitutes its own port);
 * - every `curl` fails the run on an HTTP error (the test wraps it with --fail-with-body), except
 *   a line that shows an error on purpose, which ends in `|| true`;
 * - ids are captured into variables (`TX=$(curl ... | json transactionId)`), never left as `tx_...`;
 * - `# ...` lines are the expected output, for the reader.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { ROOT, startServer, tempDbPath } from "../helpers/server.js";

/** The ```sh blocks that run, in order. */
function runnableBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  const fence = /^```sh([^\n]*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) {
    if (!/\bno-run\b/.test(m[1] ?? "")) blocks.push(m[2] ?? "");
  }
  return blocks;
}

function runScript(script: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", script], { cwd: ROOT, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, output: `${stdout}\n${stderr}` });
    });
  });
}

describe("README examples", () => {
  it("every code fence is closed before the next section: no heading renders inside a code block", () => {
    let open: { line: number; fence: string } | undefined;
    const lines = readFileSync(`${ROOT}README.md`, "utf8").split("\n");
    lines.forEach((text, i) => {
      const fence = /^(`{3,}|~{3,})/.exec(text)?.[1];
      if (fence && (!open || (fence[0] === open.fence[0] && fence.length >= open.fence.length && text.trim() === fence))) {
        open = open ? undefined : { line: i + 1, fence };
      } else if (open && /^#{2,3} /.test(text)) {
        throw new Error(`README.md:${i + 1}: heading "${text}" inside the code block opened at line ${open.line}`);
      }
    });
    expect(open, `README.md: the code block opened at line ${open?.line} is never closed`).toBeUndefined();
  });

  it("every sh block runs in order, on a fresh and on a reused database", async () => {
    const blocks = runnableBlocks(readFileSync(`${ROOT}README.md`, "utf8"));
    expect(blocks.length).toBeGreaterThan(3);
    const commands = blocks
      .join("\n")
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"));
    expect(commands.join("\n")).not.toMatch(/\b(tx|tok|sub)_\.\.\./);
    const dbPath = tempDbPath();
    for (const pass of ["fresh", "reused"]) {
      const server = await startServer({ dbPath });
      try {
        const host = server.url.replace(/^http:\/\//, "");
        const script = [
          "set -eo pipefail",
          'curl() { command curl --silent --show-error --fail-with-body "$@"; }',
          ...blocks.map((b) => b.replaceAll("localhost:8080", host)),
        ].join("\n");
        const { code, output } = await runScript(script);
        expect(code, `${pass} database:\n${output}`).toBe(0);
      } finally {
        await server.stop();
      }
    }
  }, 120_000);
});

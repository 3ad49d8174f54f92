/**
 * The README's "Parallel test suites" fixtures work as written (CONTRACT §8): every fenced block
 * marked `file=NAME` (```python file=conftest.py, ```java file=CheckoutTest.java,
 * ```go file=checkout_test.go) is written, unchanged, to a temp folder for its language and run by
 * that language's own test runner against one real server (PAYSANDBOX_URL), the three suites at
 * once, as a CI suite's parallel files would. Then no sandbox is left: each fixture deleted its own.
 *
 * A language whose toolchain is absent is skipped with a warning; `.ci/run` installs them with apt
 * (python3-pytest, junit5 with a JDK, golang-go). Python is Debian's /usr/bin/python3, since a
 * `python3` earlier on PATH (pyenv) may lack pytest.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, type RunningServer, startServer } from "../helpers/server.js";

const JUNIT_JAR = "/usr/share/java/junit-platform-console-standalone.jar";
const PYTHONS = ["/usr/bin/python3", "python3"];
/** A short-lived JVM starts faster without the optimising compiler and with the serial collector. */
const JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

/** The README's runnable blocks of each language: file name → content. */
function fileBlocks(markdown: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  const fence = /^```(\w+) file=(\S+)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) {
    const [, lang = "", name = "", content = ""] = m;
    if (!out.has(lang)) out.set(lang, new Map());
    out.get(lang)?.set(name, content);
  }
  return out;
}

const succeeds = (cmd: string, args: string[]) => {
  try {
    return spawnSync(cmd, args, { stdio: "ignore", timeout: 20_000 }).status === 0;
  } catch {
    return false;
  }
};

/** Each language's toolchain, or what is missing and the Debian package that has it. */
function toolchains() {
  const python = PYTHONS.find((p) => succeeds(p, ["-c", "import pytest"]));
  const java = succeeds("javac", ["-version"]) && succeeds("java", ["-version"]) && existsSync(JUNIT_JAR);
  const go = succeeds("go", ["version"]);
  return {
    python: python ?? { absent: "python3 with pytest", apt: "python3-pytest" },
    java: java ? "java" : { absent: `javac, java or ${JUNIT_JAR}`, apt: "default-jdk-headless junit5" },
    go: go ? "go" : { absent: "go", apt: "golang-go" },
  };
}

function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env?: Record<string, string> },
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: opts.cwd, env: { ...process.env, ...opts.env }, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, output: `$ ${cmd} ${args.join(" ")}\n${stdout}\n${stderr}` });
      },
    );
  });
}

const blocks = fileBlocks(readFileSync(join(ROOT, "README.md"), "utf8"));
const tools = toolchains();
const work = mkdtempSync(join(tmpdir(), "paysandbox-readme-langs-"));

/** Writes a language's blocks into its own folder. */
function writeBlocks(lang: string): string {
  const files = blocks.get(lang);
  if (!files || files.size === 0) throw new Error(`README.md has no \`\`\`${lang} file=... block`);
  const dir = join(work, lang);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of files) writeFileSync(join(dir, name), content);
  return dir;
}

describe("README: the parallel test suites' fixtures, run by their own test runners", () => {
  let server: RunningServer;
  let ran = 0;

  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  for (const [lang, tool] of Object.entries(tools)) {
    if (typeof tool !== "string")
      console.warn(`readme.languages: ${lang} skipped, ${tool.absent} is absent (.ci/run installs it)`);
  }
  const when = (tool: string | { absent: string; apt: string }) => (typeof tool === "string" ? it.concurrent : it.skip);

  when(tools.python)("pytest: conftest.py and test_checkout.py", async ({ expect }) => {
    const dir = writeBlocks("python");
    const r = await run(tools.python as string, ["-m", "pytest", "-q", "-p", "no:cacheprovider", dir], {
      cwd: dir,
      env: { PAYSANDBOX_URL: server.url, PYTHONDONTWRITEBYTECODE: "1" },
    });
    ran++;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\b[1-9]\d* passed\b/);
  });

  when(tools.java)("JUnit 5: CheckoutTest.java, compiled and run by the console launcher", async ({ expect }) => {
    const dir = writeBlocks("java");
    const sources = [...(blocks.get("java")?.keys() ?? [])];
    const javac = await run("javac", [...JVM_FLAGS.map((f) => `-J${f}`), "-d", "classes", "-cp", JUNIT_JAR, ...sources], {
      cwd: dir,
    });
    expect(javac.code, javac.output).toBe(0);
    const classes = sources.flatMap((f) => ["--select-class", f.replace(/\.java$/, "")]);
    const r = await run(
      "java",
      [
        ...JVM_FLAGS,
        "-jar",
        JUNIT_JAR,
        "-cp",
        "classes",
        "--disable-banner",
        "--details=summary",
        "--fail-if-no-tests",
        ...classes,
      ],
      { cwd: dir, env: { PAYSANDBOX_URL: server.url } },
    );
    ran++;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/\[\s*[1-9]\d* tests successful\s*\]/);
  });

  when(tools.go)("Go: checkout_test.go in a module without dependencies", async ({ expect }) => {
    const dir = writeBlocks("go");
    writeFileSync(join(dir, "go.mod"), "module example.com/checkout\n\ngo 1.19\n");
    // -vet=off: vet type-checks the standard library from source on a cold cache (about 7 s here)
    const r = await run("go", ["test", "-count=1", "-vet=off", "./..."], {
      cwd: dir,
      env: {
        PAYSANDBOX_URL: server.url,
        GOPATH: join(dir, ".gopath"),
        GOCACHE: join(dir, ".gocache"),
        GOFLAGS: "-mod=mod",
        GOPROXY: "off",
        GOSUMDB: "off",
        GOTOOLCHAIN: "local",
        GOTELEMETRY: "off",
        // without a C compiler the standard library is rebuilt without cgo (slower, but it runs)
        ...(succeeds("gcc", ["--version"]) ? {} : { CGO_ENABLED: "0" }),
      },
    });
    ran++;
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/^ok\s+example\.com\/checkout/m);
  });

  it.concurrent("vitest: checkout.test.ts with connectSandbox from paysandbox/testing", async ({ expect }) => {
    // inside the package, so `paysandbox/testing` resolves to this build (dist/testing.js), as in a user's project
    const dir = mkdtempSync(join(ROOT, "test", ".readme-ts-"));
    try {
      for (const [name, content] of blocks.get("ts") ?? []) writeFileSync(join(dir, name), content);
      writeFileSync(join(dir, "vitest.config.mjs"), "export default { test: { include: ['*.test.ts'] } };\n");
      const r = await run(
        process.execPath,
        [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--config", "vitest.config.mjs"],
        {
          cwd: dir,
          env: { PAYSANDBOX_URL: server.url },
        },
      );
      ran++;
      expect(r.code, r.output).toBe(0);
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours of vitest's own output
      expect(r.output.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests\s+1 passed/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every fixture deleted the sandbox it made, whatever its tests did", async () => {
    if (ran === 0) return;
    const list = await fetch(`${server.url}/_sandbox/sandboxes`);
    expect(await list.json()).toEqual([]);
  });
});

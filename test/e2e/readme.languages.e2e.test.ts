/**
 * The docs' `file=NAME` blocks work as written (docs/parallel-suites.md; which pages have them:
 * FILE_BLOCK_OWNERS in test/helpers/docs.ts):
 * - docs/parallel-suites.md and docs/snapshots.md: every fixture (```python file=conftest.py, ```java file=CheckoutTest.java,
 *   ```go file=checkout_test.go, ```ts file=checkout.test.ts) is written, unchanged, to a temp folder
 *   for its language and run by that language's own test runner against one real server
 *   (PAYSANDBOX_URL), the suites at once, as a CI suite's parallel files would. Then no sandbox is
 *   left: each fixture deleted its own.
 * - docs/webhooks.md: each signature verifier (```js file=verify-checksum.mjs,
 *   ```python file=verify_checksum.py, ```go file=verify_checksum.go) judges real deliveries taken by a receiver: true with the
 *   merchant's secret, false with another secret or a changed body.
 *
 * A language whose toolchain is absent is skipped with a warning; `.ci/run` installs them with apt
 * (python3-pytest, junit5 with a JDK, golang-go). Python is Debian's /usr/bin/python3, since a
 * `python3` earlier on PATH (pyenv) may lack pytest.
 */
import { execFile, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exampleDevice } from "../../src/platform/examples.js";
import { docPage, fileBlocks } from "../helpers/docs.js";
import { ROOT, type RunningServer, startServer } from "../helpers/server.js";
import { BILLING } from "../http/payments.body.js";

const JUNIT_JAR = "/usr/share/java/junit-platform-console-standalone.jar";
const PYTHONS = ["/usr/bin/python3", "python3"];
/** A short-lived JVM starts faster without the optimising compiler and with the serial collector. */
const JVM_FLAGS = ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"];

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

/** `go test` in a folder of its own, offline, with no module download. */
function goEnv(dir: string): Record<string, string> {
  return {
    GOPATH: join(dir, ".gopath"),
    GOCACHE: join(dir, ".gocache"),
    GOFLAGS: "-mod=mod",
    GOPROXY: "off",
    GOSUMDB: "off",
    GOTOOLCHAIN: "local",
    GOTELEMETRY: "off",
    // without a C compiler the standard library is rebuilt without cgo (slower, but it runs)
    ...(succeeds("gcc", ["--version"]) ? {} : { CGO_ENABLED: "0" }),
  };
}

const SUITES = docPage("docs/parallel-suites.md");
/** The pages whose fixtures run, each by its language's own test runner. */
const FIXTURE_PAGES = [SUITES, docPage("docs/snapshots.md")];
const WEBHOOKS = docPage("docs/webhooks.md");
const tools = toolchains();
const work = mkdtempSync(join(tmpdir(), "paysandbox-readme-langs-"));

/** Writes a page's blocks of one language into a folder of their own. */
function writeBlocks(lang: string, page = SUITES): string {
  const files = fileBlocks(page, lang);
  if (files.size === 0) throw new Error(`${page.path} has no \`\`\`${lang} file=... block`);
  const dir = join(work, `${page.path.replace(/\W/g, "-")}-${lang}`);
  mkdirSync(dir, { recursive: true });
  for (const [name, content] of files) writeFileSync(join(dir, name), content);
  return dir;
}

describe("docs: the parallel test suites' fixtures run by their own test runners, the webhook verifiers on real deliveries", () => {
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

  for (const page of FIXTURE_PAGES) {
    when(tools.python)(`${page.path}: pytest, its conftest.py and tests`, async ({ expect }) => {
      const dir = writeBlocks("python", page);
      const r = await run(tools.python as string, ["-m", "pytest", "-q", "-p", "no:cacheprovider", dir], {
        cwd: dir,
        env: { PAYSANDBOX_URL: server.url, PYTHONDONTWRITEBYTECODE: "1" },
      });
      ran++;
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(/\b[1-9]\d* passed\b/);
    });

    when(tools.java)(`${page.path}: JUnit 5, its classes compiled and run by the console launcher`, async ({ expect }) => {
      const dir = writeBlocks("java", page);
      const sources = [...fileBlocks(page, "java").keys()];
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

    when(tools.go)(`${page.path}: Go, its _test.go files in a module without dependencies`, async ({ expect }) => {
      const dir = writeBlocks("go", page);
      const pkg = /^package (\w+)/m.exec([...fileBlocks(page, "go").values()].join("\n"))?.[1] ?? "checkout";
      writeFileSync(join(dir, "go.mod"), `module example.com/${pkg}\n\ngo 1.19\n`);
      // -vet=off: vet type-checks the standard library from source on a cold cache (about 7 s here)
      const r = await run("go", ["test", "-count=1", "-vet=off", "./..."], {
        cwd: dir,
        env: { PAYSANDBOX_URL: server.url, ...goEnv(dir) },
      });
      ran++;
      expect(r.code, r.output).toBe(0);
      expect(r.output).toMatch(new RegExp(`^ok\\s+example\\.com/${pkg}`, "m"));
    });

    it.concurrent(`${page.path}: vitest, its test files with paysandbox/testing`, async ({ expect }) => {
      // inside the package, so `paysandbox/testing` resolves to this build (dist/testing.js), as in a user's project
      const dir = mkdtempSync(join(ROOT, "test", ".readme-ts-"));
      try {
        const files = fileBlocks(page, "ts");
        expect(files.size).toBeGreaterThan(0);
        for (const [name, content] of files) writeFileSync(join(dir, name), content);
        // the page's own vitest.config.ts (a globalSetup), else the plainest one
        const config = files.has("vitest.config.ts") ? "vitest.config.ts" : "vitest.config.mjs";
        if (!files.has(config)) writeFileSync(join(dir, config), "export default { test: { include: ['*.test.ts'] } };\n");
        const r = await run(process.execPath, [join(ROOT, "node_modules", "vitest", "vitest.mjs"), "run", "--config", config], {
          cwd: dir,
          env: { PAYSANDBOX_URL: server.url },
        });
        ran++;
        expect(r.code, r.output).toBe(0);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the colours of vitest's own output
        expect(r.output.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests\s+[1-9]\d* passed/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  it.concurrent("webhooks: the Node.js, Python and Go verifiers accept real deliveries and refuse another secret or a changed body", async ({
    expect,
  }) => {
    const received: Array<{ raw: string; checksum: string; path: string }> = [];
    const receiver: Server = createServer((req, res) => {
      let raw = "";
      req.setEncoding("utf8");
      req.on("data", (d: string) => {
        raw += d;
      });
      req.on("end", () => {
        received.push({ raw, checksum: String(req.headers["x-checksum"] ?? ""), path: req.url ?? "" });
        res.end("ok");
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
      const post = async (path: string, body: unknown, token?: string) => {
        const res = await fetch(`${server.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(token ? { authorization: token } : {}) },
          body: JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.status, text).toBe(200);
        return JSON.parse(text) as Record<string, string>;
      };
      const { token } = await post("/api/v1/auth", {
        merchantKey: "sandbox_merchant_key",
        merchantSecret: "sandbox_merchant_secret",
      });
      const paid = await post(
        "/api/v1/payments/card",
        {
          requestId: crypto.randomUUID(),
          mid: "sandbox-mid-001",
          amount: "20.50",
          currency: "USD",
          lang: "en",
          card: { number: "4111111111111111", expMonth: "12", expYear: "2030", cvv: "737", requestThreeDSecure: false },
          billingDetails: BILLING,
          order: { orderId: "verify-1" },
          device: exampleDevice("docs test"),
          callbackUrl: `${hook}/card`,
        },
        token,
      );
      const refundBody = { requestId: crypto.randomUUID(), mid: "sandbox-mid-001", transactionId: paid.transactionId };
      await post("/v1/refunds/card", { ...refundBody, amount: "5.00", reason: "docs", callbackUrl: `${hook}/refund` }, token);
      for (let i = 0; i < 200 && received.length < 2; i++) await new Promise((r) => setTimeout(r, 25));
      expect(received.map((r) => r.path.split("?")[0]).sort()).toEqual(["/card", "/refund"]);

      // each delivery: the right secret, a wrong one, the body changed in its first signed field
      const cases = received.flatMap(({ raw, checksum, path }) => {
        const kind = path.startsWith("/card") ? "card" : "payout";
        const first = kind === "card" ? "mid" : "transactionId";
        const changed = JSON.stringify({ ...JSON.parse(raw), [first]: "changed" });
        return [
          { raw, header: checksum, kind, secret: "sandbox_merchant_secret" },
          { raw, header: checksum, kind, secret: "another_secret" },
          { raw: changed, header: checksum, kind, secret: "sandbox_merchant_secret" },
        ];
      });
      const expected = received.flatMap(() => [true, false, false]);
      const dir = join(work, "webhook-verifiers");
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "cases.json"), JSON.stringify(cases));

      const js = writeBlocks("js", WEBHOOKS);
      writeFileSync(
        join(js, "check.mjs"),
        `import { readFileSync } from "node:fs";
import { SIGNED, verifyChecksum } from "./verify-checksum.mjs";
const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
console.log(JSON.stringify(cases.map((c) => verifyChecksum(c.raw, c.header, SIGNED[c.kind], c.secret))));
`,
      );
      const node = await run(process.execPath, ["check.mjs", join(dir, "cases.json")], { cwd: js });
      expect(node.code, node.output).toBe(0);
      expect(JSON.parse(node.output.split("\n")[1] ?? ""), node.output).toEqual(expected);

      if (typeof tools.go === "string") {
        const go = writeBlocks("go", WEBHOOKS);
        writeFileSync(join(go, "go.mod"), "module example.com/webhook\n\ngo 1.19\n");
        writeFileSync(
          join(go, "check_test.go"),
          `package webhook

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

func TestCases(t *testing.T) {
	data, err := os.ReadFile(os.Getenv("CASES"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Raw, Header, Kind, Secret string }
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	out := []bool{}
	for _, c := range cases {
		out = append(out, VerifyChecksum([]byte(c.Raw), c.Header, Signed[c.Kind], c.Secret))
	}
	text, _ := json.Marshal(out)
	fmt.Println("RESULT " + string(text))
}
`,
        );
        const r = await run("go", ["test", "-count=1", "-vet=off", "-v", "./..."], {
          cwd: go,
          env: { CASES: join(dir, "cases.json"), ...goEnv(go) },
        });
        expect(r.code, r.output).toBe(0);
        expect(JSON.parse(/^RESULT (.*)$/m.exec(r.output)?.[1] ?? ""), r.output).toEqual(expected);
      }

      if (typeof tools.python !== "string") return;
      const py = writeBlocks("python", WEBHOOKS);
      writeFileSync(
        join(py, "check.py"),
        `import json, sys
from verify_checksum import SIGNED, verify_checksum
cases = json.load(open(sys.argv[1]))
print(json.dumps([verify_checksum(c["raw"], c["header"], SIGNED[c["kind"]], c["secret"]) for c in cases]))
`,
      );
      const python = await run(tools.python, ["check.py", join(dir, "cases.json")], {
        cwd: py,
        env: { PYTHONDONTWRITEBYTECODE: "1" },
      });
      expect(python.code, python.output).toBe(0);
      expect(JSON.parse(python.output.split("\n")[1] ?? ""), python.output).toEqual(expected);
    } finally {
      receiver.close();
    }
  });

  it("every fixture deleted the sandbox it made, whatever its tests did", async () => {
    if (ran === 0) return;
    const list = await fetch(`${server.url}/_sandbox/sandboxes`);
    expect(await list.json()).toEqual([]);
  });
});

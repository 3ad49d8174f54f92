/**
 * The `paysandbox` command line (docs/configuration.md, docs/scenarios.md, docs/events.md): `start` (the server; the default command),
 * `run` (scenario steps for QA and CI), `listen` (a sandbox's live events), `record` (a sandbox's
 * session as a steps file), `snapshot save|load` (a sandbox's whole state as a file, docs/snapshots.md), `trigger` (a
 * real webhook of a kind, for building a receiver, docs/webhooks.md#building-a-receiver), `schema` (the JSON
 * Schema of scenario files), `--help` on
 * each and `--version`. A bad flag or command prints the usage and exits 2, as a bad setting does.
 * The server itself is passed in (`main.ts` owns it), so this file starts nothing on import.
 */
import { Command, CommanderError, Option } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { type Config, ConfigError, configFromFlags, SETTINGS } from "../config.js";
import { FORMATS } from "../coverage/formats.js";
import { type CoverageOptions, coverageCommand } from "./coverage.js";
import { type ListenOptions, listenCommand } from "./listen.js";
import { type RecordOptions, recordCommand } from "./record.js";
import { type RunCommandOptions, runCommand, USAGE_ERROR } from "./run.js";
import { scenarioJsonSchema } from "./schema.js";
import { type SnapshotLoadOptions, type SnapshotSaveOptions, snapshotLoadCommand, snapshotSaveCommand } from "./snapshot.js";
import { kindsHelp, type TriggerOptions, triggerCommand } from "./trigger.js";

/** --target, --sandbox, --admin-token: the commands that talk to a running server (server-flags.ts). */
const withServerFlags = (cmd: Command): Command =>
  cmd
    .option("--target <url>", "the running server", "http://localhost:8080")
    .option("--sandbox <id>", "a sandbox of that server (sbx_...) instead of the root")
    .option("--admin-token <token>", "the target's SANDBOX_ADMIN_TOKEN (sent to /_sandbox/*)", process.env.SANDBOX_ADMIN_TOKEN);

export interface CliDeps {
  /** `paysandbox start`: serves until a signal. */
  start(config: Config): Promise<void>;
}

function buildProgram(deps: CliDeps, exit: (code: number) => void): Command {
  const program = new Command("paysandbox")
    .description("A local sandbox of the card and APM gateway")
    .version(pkg.version, "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .showHelpAfterError()
    .exitOverride()
    .configureHelp({ sortSubcommands: false });

  const start = program
    .command("start")
    .description("serve the sandbox (the default command); every flag is also an environment variable, flags win")
    .exitOverride()
    .showHelpAfterError();
  for (const s of Object.values(SETTINGS)) {
    const option = new Option(`--${s.flag} <${s.flag === "scenario" ? "file" : "value"}>`, `${s.help} [env ${s.env}]`);
    if (s.flag === "scenario") option.argParser((v: string, prev: string[] | undefined) => [...(prev ?? []), v]);
    start.addOption(option);
  }
  start.action(async (opts: Record<string, string | string[] | undefined>) => {
    const flags = Object.fromEntries(
      Object.values(SETTINGS).map((s) => [s.flag, opts[s.flag.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())]]),
    );
    let config: Config;
    try {
      config = configFromFlags(flags, process.env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      console.error(`paysandbox: ${err.message}`);
      return exit(USAGE_ERROR);
    }
    await deps.start(config);
  });

  program
    .command("run")
    .description("run the steps of scenario files; exit 0 when all pass, 1 when any fails, 2 when a file is missing or invalid")
    .argument("<files...>", "scenario files (.yaml, .yml, .json)")
    .option(
      "--target <url>",
      "run each file in a new sandbox of its own on this running server (deleted after the run), instead of a fresh one in this process",
    )
    .option("--keep", "with --target: keep each file's sandbox and print its baseUrl")
    .option("--parallel <n>", "files run at once (default: the number of files, up to 8)")
    .option("--admin-token <token>", "the target's SANDBOX_ADMIN_TOKEN (sent to /_sandbox/*)", process.env.SANDBOX_ADMIN_TOKEN)
    .option("--junit <file>", "also write a JUnit XML report there")
    .addOption(new Option("--reporter <name>", "what to print").choices(["pretty", "json"]).default("pretty"))
    .option("--coverage", "also print the payment behaviours the files exercised, every file's sandbox merged (docs/coverage.md)")
    .option(
      "--require <file>",
      "with --coverage: a checklist of behaviour ids (checklists/go-live.yaml); exit 1 listing those never seen",
    )
    .exitOverride()
    .showHelpAfterError()
    .action(async (files: string[], opts: RunCommandOptions) => {
      exit(await runCommand(files, opts));
    });

  withServerFlags(program.command("listen"))
    .description(
      "print a sandbox's live events as they happen (one line each); reconnects by itself and resumes where it was; exits 1 if it cannot connect at all (5 tries over 7.5 s)",
    )
    .option("--types <list>", "only these event types, comma-separated: transaction, webhook, clock, scenario, reset")
    .option(
      "--forward-to <url>",
      "also POST each webhook delivery (its exact body and headers, on its first attempt) to this URL and print the answer",
    )
    .option("--json", "one JSON object per line: {id, event, data}")
    .option("--since <id>", "start after this event id (0: every event the server keeps); default: new events only")
    .option("--count <n>", "exit (status 0) after printing n events")
    .exitOverride()
    .showHelpAfterError()
    .action(async (opts: ListenOptions) => {
      exit(await listenCommand(opts));
    });

  withServerFlags(program.command("coverage"))
    .description(
      "a sandbox's payment-behaviour coverage (GET /_sandbox/coverage): which behaviours of the catalogue it saw, and how to cause the others; exit 1 when --require or --fail-under is not met",
    )
    .addOption(new Option("--format <name>", "what to print").choices([...FORMATS]).default("table"))
    .option(
      "--require <file>",
      "a checklist: a YAML list of behaviour ids (checklists/go-live.yaml); exit 1 listing those never seen, each with its hint",
    )
    .option("--fail-under <pct>", "exit 1 when less than this share of the catalogue was seen (0 to 100)")
    .option("--out <file>", "write the report there (default: stdout)")
    .option("--recipe <id>", "print the steps file that causes this behaviour (`paysandbox run` plays it) instead of a report")
    .exitOverride()
    .showHelpAfterError()
    .action(async (opts: CoverageOptions) => {
      exit(await coverageCommand(opts));
    });

  withServerFlags(program.command("record"))
    .description("write what was done in a sandbox as a steps file that `paysandbox run` replays (GET /_sandbox/recording)")
    .option("--out <file>", "write the file there (default: stdout)")
    .option("--from <iso>", "only calls made at or after this virtual time")
    .option("--to <iso>", "only calls made at or before this virtual time")
    .option("--json", "JSON instead of YAML")
    .exitOverride()
    .showHelpAfterError()
    .action(async (opts: RecordOptions) => {
      exit(await recordCommand(opts));
    });

  program
    .command("trigger")
    .description(
      "make the real transaction of KIND in a sandbox so its real, signed webhook goes to --to (else to this command, which prints it), and print what each delivery got; exit 0 when every delivery was acknowledged (2xx)",
    )
    .argument("[kind]", "what to cause (the list below)")
    .option("--target <url>", "the running server", "http://localhost:8080")
    .option("--sandbox <id>", "do it in this sandbox of the server (sbx_..., or root); default: a fresh sandbox, deleted after")
    .option("--to <url>", "where the webhooks go (the receiver you are building); default: this command listens and prints them")
    .option("--keep", "keep the fresh sandbox (and print its baseUrl)")
    .option("--json", "print one JSON object: the kind, the transaction and each delivery with its attempts")
    .option("--admin-token <token>", "the target's SANDBOX_ADMIN_TOKEN (sent to /_sandbox/*)", process.env.SANDBOX_ADMIN_TOKEN)
    .addHelpText("after", kindsHelp)
    .exitOverride()
    .showHelpAfterError()
    .action(async (kind: string | undefined, opts: TriggerOptions) => {
      exit(await triggerCommand(kind, opts));
    });

  const snapshot = program
    .command("snapshot")
    .description("save a sandbox's whole state as a file, or start a new sandbox from one (docs/snapshots.md)")
    .exitOverride()
    .showHelpAfterError();
  withServerFlags(snapshot.command("save"))
    .description(
      "write a sandbox's whole state as one file (GET /_sandbox/snapshot); `snapshot load` starts new sandboxes from it",
    )
    .option("--out <file>", "write the file there (default: stdout, when it is not a terminal)")
    .exitOverride()
    .showHelpAfterError()
    .action(async (opts: SnapshotSaveOptions) => {
      exit(await snapshotSaveCommand(opts));
    });
  snapshot
    .command("load")
    .description("start a new sandbox on a running server from a snapshot file; prints its baseUrl")
    .argument("<file>", "a file `paysandbox snapshot save` wrote")
    .option("--target <url>", "the running server", "http://localhost:8080")
    .option("--name <name>", "the new sandbox's name (the dashboard and the list show it)")
    .option("--ttl <duration>", "ISO 8601 duration of real time without a request after which it is deleted (default PT1H)")
    .option("--admin-token <token>", "the target's SANDBOX_ADMIN_TOKEN (sent to /_sandbox/*)", process.env.SANDBOX_ADMIN_TOKEN)
    .exitOverride()
    .showHelpAfterError()
    .action(async (file: string, opts: SnapshotLoadOptions) => {
      exit(await snapshotLoadCommand(file, opts));
    });

  program
    .command("schema")
    .description("print the JSON Schema of scenario files (for editors: yaml-language-server, VS Code)")
    .exitOverride()
    .action(() => {
      process.stdout.write(`${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
      exit(0);
    });

  return program;
}

/** Runs the command line; `exit` ends the process (tests pass their own). */
export async function runCli(
  argv: string[],
  deps: CliDeps,
  exit: (code: number) => void = (c) => process.exit(c),
): Promise<void> {
  const program = buildProgram(deps, exit);
  // `paysandbox` alone, or with flags only, is `paysandbox start` (as before the other commands came)
  const first = argv[0];
  const startByDefault = first === undefined || (first.startsWith("-") && !["-h", "--help", "-V", "--version"].includes(first));
  try {
    await program.parseAsync(startByDefault ? ["start", ...argv] : argv, { from: "user" });
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err;
    // --help and --version end with a CommanderError too, exit code 0
    exit(err.exitCode === 0 ? 0 : USAGE_ERROR);
  }
}

/**
 * Settings (docs/configuration.md). The only file that reads process.env / argv (parsed once, failing fast, then passed in):
 * parsed once by zod, a bad value fails fast with a message naming the setting.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { INSTANT_REASON, parseInstant } from "./platform/clock.js";

const TIME_SCALE_RULE = "must be a number above 0 and at most 1000000";
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** A whole-number setting from `min` to `max`; anything else is refused with that rule. */
const wholeNumber = (min: number, max: number) => {
  const error = `must be a whole number from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** Each setting: env var, flag, and its schema. docs/configuration.md's settings table mirrors this list. */
export const SETTINGS = {
  port: {
    env: "PORT",
    flag: "port",
    help: "listen port (0 = any free port, printed on start)",
    schema: wholeNumber(0, 65535).default(8080),
  },
  host: { env: "HOST", flag: "host", help: "listen address", schema: z.string().min(1).default("0.0.0.0") },
  db: { env: "SANDBOX_DB", flag: "db", help: "SQLite file, or :memory:", schema: z.string().min(1).default("./data/sandbox.db") },
  scenarios: {
    env: "SANDBOX_SCENARIO",
    flag: "scenario",
    help: "scenario file to load at start (repeatable)",
    schema: z.array(z.string().min(1)).default([]),
  },
  publicUrl: {
    env: "SANDBOX_PUBLIC_URL",
    flag: "public-url",
    help: "base of every URL the sandbox hands out (challenge, HPP)",
    schema: z.url({ protocol: /^https?$/ }).optional(),
  },
  timeScale: {
    env: "SANDBOX_TIME_SCALE",
    flag: "time-scale",
    help: "virtual seconds per real second",
    schema: z.coerce
      .number({ error: TIME_SCALE_RULE })
      .positive({ error: TIME_SCALE_RULE })
      .max(1_000_000, { error: TIME_SCALE_RULE })
      .default(1),
  },
  startTime: {
    env: "SANDBOX_START_TIME",
    flag: "start-time",
    help: "virtual time at first start (ISO 8601)",
    schema: z
      .string()
      .refine((s) => parseInstant(s) !== undefined, INSTANT_REASON)
      .refine((s) => (parseInstant(s) ?? 0) <= Date.UTC(9999, 0, 1), "expected a time no later than 9999-01-01")
      .transform((s) => parseInstant(s) as number)
      .optional(),
  },
  adminToken: {
    env: "SANDBOX_ADMIN_TOKEN",
    flag: "admin-token",
    help: "when set, /_sandbox/* needs Authorization: Bearer <it>",
    schema: z.string().min(1).optional(),
  },
  headerTimeoutSeconds: {
    env: "SANDBOX_HEADER_TIMEOUT_SECONDS",
    flag: "header-timeout-seconds",
    help: "seconds a client has to send a request's head (method, path, headers); a slower one gets 408 and is closed",
    schema: wholeNumber(1, 3600).default(30),
  },
  requestTimeoutSeconds: {
    env: "SANDBOX_REQUEST_TIMEOUT_SECONDS",
    flag: "request-timeout-seconds",
    help: "seconds a client has to send a whole request, head and body; at least the header timeout",
    schema: wholeNumber(1, 86_400).default(120),
  },
  logLevel: {
    env: "LOG_LEVEL",
    flag: "log-level",
    help: "pino level: fatal, error, warn, info, debug, trace, silent",
    schema: z.enum(LOG_LEVELS).default("info"),
  },
  tokenTtlDays: {
    env: "SANDBOX_TOKEN_TTL_DAYS",
    flag: "token-ttl-days",
    help: "default lifetime of card tokens, in days",
    schema: wholeNumber(1, 36500).default(90),
  },
  rateLimit: {
    env: "SANDBOX_RATE_LIMIT",
    flag: "rate-limit",
    help: "requests a minute (or second, hour) per merchant, like the live limit: 40/min; over it → 429",
    schema: z
      .string()
      .regex(/^[1-9]\d{0,8}\/(s|sec|second|m|min|minute|h|hour)$/, "expected N/sec, N/min or N/hour, such as 40/min")
      .transform(parseRateLimit)
      .optional(),
  },
  storage: {
    env: "SANDBOX_STORAGE",
    flag: "storage",
    help: "where a sandbox keeps its database unless its create says: file (survives a restart) or memory (faster, gone at a restart); default file, memory with --db :memory:",
    schema: z.enum(["file", "memory"], { error: "expected file or memory" }).optional(),
  },
  maxSandboxes: {
    env: "SANDBOX_MAX_SANDBOXES",
    flag: "max-sandboxes",
    help: "sandboxes at once besides the root (POST /_sandbox/sandboxes); one more → 429",
    schema: wholeNumber(0, 1_000_000).default(1000),
  },
  snapshotKeepMb: {
    env: "SANDBOX_SNAPSHOT_KEEP_MB",
    flag: "snapshot-keep-mb",
    help: "MiB of loaded snapshot files kept, so that loading one again costs what a fork costs; 0 keeps none",
    schema: wholeNumber(0, 65_536).default(64),
  },
  eventsKeep: {
    env: "SANDBOX_EVENTS_KEEP",
    flag: "events-keep",
    help: "live events kept per sandbox (GET /_sandbox/events), the newest; older ones are pruned",
    schema: wholeNumber(1, 100_000_000).default(100_000),
  },
  recordingKeep: {
    env: "SANDBOX_RECORDING_KEEP",
    flag: "recording-keep",
    help: "calls kept per sandbox for GET /_sandbox/recording, the newest; 0 turns recording off",
    schema: wholeNumber(0, 100_000_000).default(10_000),
  },
  maxRetries: {
    env: "SANDBOX_MAX_RETRIES",
    flag: "max-retries",
    help: "consecutive failed subscription charges before a pause",
    schema: wholeNumber(1, 100).default(3),
  },
} as const;

/** `40/min` → 40 requests per 60,000 ms (SANDBOX_RATE_LIMIT, docs/configuration.md). */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const [n, unit = "min"] = text.split("/");
  const windowMs = unit.startsWith("s") ? 1_000 : unit.startsWith("h") ? 3_600_000 : 60_000;
  return { limit: Number(n), windowMs };
}

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: z.output<Settings[K]["schema"]> } & {
  /** Base of every URL the sandbox hands out; resolved against the bound port at start. */
  publicUrl: string | undefined;
};

export class ConfigError extends Error {}

/** Parses flags (winning) over env vars. Throws ConfigError naming the first bad setting. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv): Config {
  const options = Object.fromEntries(
    Object.values(SETTINGS).map((s) => [s.flag, { type: "string" as const, multiple: s.flag === "scenario" }]),
  );
  let flags: Record<string, string | string[] | undefined>;
  try {
    flags = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true }).values as typeof flags;
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return configFromFlags(flags, env);
}

/**
 * The same from flags already split by a command-line parser (`paysandbox start`'s): keyed by flag
 * name (`public-url`), strings, `scenario` a list. Throws ConfigError naming the first bad setting.
 */
export function configFromFlags(flags: Record<string, string | string[] | undefined>, env: NodeJS.ProcessEnv): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(SETTINGS)) {
    const fromFlag = flags[s.flag];
    const fromEnv = env[s.env] === "" ? undefined : env[s.env];
    let raw: unknown = fromFlag ?? fromEnv;
    if (key === "scenarios" && typeof raw === "string")
      raw = raw
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
    const parsed = (s.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag !== undefined ? `--${s.flag}` : s.env;
      const issue = parsed.error.issues[0]?.message ?? "invalid value";
      throw new ConfigError(`Invalid setting ${source} (${s.env} / --${s.flag}): ${issue}; got ${JSON.stringify(raw)}`);
    }
    out[key] = parsed.data;
  }
  if (out.storage === "file" && out.db === ":memory:") {
    const source = flags.storage !== undefined ? "--storage" : "SANDBOX_STORAGE";
    throw new ConfigError(
      `Invalid setting ${source} (SANDBOX_STORAGE / --storage): file needs a database file, and SANDBOX_DB is :memory:; got "file"`,
    );
  }
  const config = out as Config;
  if (config.headerTimeoutSeconds > config.requestTimeoutSeconds) {
    const source = (key: "headerTimeoutSeconds" | "requestTimeoutSeconds") =>
      flags[SETTINGS[key].flag] !== undefined ? `--${SETTINGS[key].flag}` : SETTINGS[key].env;
    throw new ConfigError(
      `Invalid setting ${source("headerTimeoutSeconds")} (SANDBOX_HEADER_TIMEOUT_SECONDS / --header-timeout-seconds): ` +
        `must be at most the request timeout (${source("requestTimeoutSeconds")}, ${config.requestTimeoutSeconds}); ` +
        `got ${config.headerTimeoutSeconds}`,
    );
  }
  return config;
}

/** A config for tests and embedders: defaults, in memory, with overrides. */
export function defaultConfig(overrides: Partial<Config> = {}): Config {
  return { ...parseConfig([], {}), db: ":memory:", ...overrides };
}

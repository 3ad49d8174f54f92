/**
 * Builds every service from the parsed config, a clock and a database (house style 3/8).
 * `createApp(ctx)` turns a context into HTTP; tests build one on `:memory:` with a ManualClock.
 */
import pino from "pino";
import type { Config } from "./config.js";
import { type Db, openDb } from "./db/client.js";
import type { Logger } from "./logger.js";
import { AuthService } from "./modules/auth/auth.service.js";
import { IdempotencyService } from "./modules/idempotency/idempotency.service.js";
import { MerchantService } from "./modules/merchants/merchants.service.js";
import type { Clock } from "./platform/clock.js";
import { type Ids, randomIds } from "./platform/ids.js";
import { ClockStore } from "./sandbox/clock-store.js";
import { ControlService } from "./sandbox/control.service.js";
import { ScenarioService } from "./scenarios/scenario.service.js";
import { DueWorkRunner } from "./scheduler/due-work.js";
import { Outbox } from "./webhooks/outbox.js";

export interface AppContext {
  config: Config;
  db: Db;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  /** Base URL the sandbox hands out (challenge and HPP pages). */
  publicUrl: () => string;
  work: DueWorkRunner;
  clockStore: ClockStore;
  merchants: MerchantService;
  scenarios: ScenarioService;
  auth: AuthService;
  control: ControlService;
  idempotency: IdempotencyService;
  /** Write side of the webhook outbox: enqueue inside the state change's transaction, then `work.poke()`. */
  outbox: Outbox;
}

export interface ContextOptions {
  config: Config;
  clock: Clock;
  db?: Db;
  ids?: Ids;
  logger?: Logger;
  publicUrl?: () => string;
}

export function createContext(opts: ContextOptions): AppContext {
  const { config, clock } = opts;
  const db = opts.db ?? openDb(config.db);
  const logger = opts.logger ?? pino({ level: "silent" });
  const merchants = new MerchantService(db);
  merchants.seedBuiltin();
  const scenarios = new ScenarioService(db, clock, merchants);
  const work = new DueWorkRunner(clock);
  const clockStore = new ClockStore(db, clock);
  const ids = opts.ids ?? randomIds;
  const ctx: AppContext = {
    config,
    db,
    clock,
    ids,
    logger,
    publicUrl: opts.publicUrl ?? (() => config.publicUrl ?? `http://localhost:${config.port}`),
    work,
    clockStore,
    merchants,
    scenarios,
    auth: new AuthService(db, clock, merchants),
    control: undefined as unknown as ControlService,
    idempotency: new IdempotencyService(db, clock),
    outbox: new Outbox(db, clock, ids),
  };
  ctx.control = new ControlService(ctx);
  return ctx;
}

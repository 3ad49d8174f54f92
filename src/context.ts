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
import { FxRates } from "./modules/payments/fx.js";
import { PaymentService } from "./modules/payments/payments.service.js";
import { SubscriptionService } from "./modules/subscriptions/subscriptions.service.js";
import { TokenService } from "./modules/tokens/tokens.service.js";
import type { Clock } from "./platform/clock.js";
import { type Ids, randomIds } from "./platform/ids.js";
import { ClockStore } from "./sandbox/clock-store.js";
import { ControlService } from "./sandbox/control.service.js";
import { TransactionCompletions } from "./sandbox/transactions.service.js";
import { OutcomeEngine } from "./scenarios/outcome-engine.js";
import { ScenarioService } from "./scenarios/scenario.service.js";
import { DueWorkRunner } from "./scheduler/due-work.js";
import { SubscriptionScheduler } from "./scheduler/subscriptions.js";
import { type DispatcherOptions, WebhookDispatcher } from "./webhooks/dispatcher.js";
import { WebhookJournal } from "./webhooks/journal.js";
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
  /** The webhook dispatcher (a DueWork): sends and retries. */
  webhooks: WebhookDispatcher;
  /** The webhook delivery journal and replay (CONTRACT §4). */
  journal: WebhookJournal;
  /** The outcome engine: card number → profile, profile + flow + amount → outcome (CONTRACT §3, §6). */
  outcomes: OutcomeEngine;
  /** Card authorizations (payments, one-click and subscription charges), 3DS and completions. */
  payments: PaymentService;
  /** Card tokens and one-click charges (interface §4.1, §4.2). */
  tokens: TokenService;
  /** Recurring subscriptions; their scheduler is a DueWork on `work` (interface §4.5–§4.8). */
  subscriptions: SubscriptionService;
  /** POST /_sandbox/transactions/{id}/complete: each area registers the kinds it finishes. */
  completions: TransactionCompletions;
}

export interface ContextOptions {
  config: Config;
  clock: Clock;
  db?: Db;
  ids?: Ids;
  logger?: Logger;
  publicUrl?: () => string;
  /** Webhook dispatcher settings (tests shorten the 10 s timeout). */
  webhooks?: DispatcherOptions;
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
    webhooks: new WebhookDispatcher(db, clock, () => work.poke(), { logger, ...opts.webhooks }),
    journal: new WebhookJournal(db, clock, ids, () => work.poke()),
    outcomes: undefined as unknown as OutcomeEngine,
    payments: undefined as unknown as PaymentService,
    tokens: undefined as unknown as TokenService,
    subscriptions: undefined as unknown as SubscriptionService,
    completions: undefined as unknown as TransactionCompletions,
  };
  // attempts a crash left in flight are recorded and rescheduled before anything runs
  ctx.webhooks.recover();
  work.register(ctx.webhooks);
  ctx.outcomes = new OutcomeEngine(scenarios);
  ctx.completions = new TransactionCompletions(db);
  ctx.payments = new PaymentService({ ...ctx, fx: new FxRates(scenarios) });
  ctx.tokens = new TokenService({ ...ctx, tokenTtlDays: config.tokenTtlDays });
  ctx.subscriptions = new SubscriptionService({ ...ctx, maxRetries: config.maxRetries });
  work.register(new SubscriptionScheduler(ctx.subscriptions, clock, () => work.poke()));
  ctx.control = new ControlService(ctx);
  ctx.control.onReset(() => ctx.webhooks.clear());
  return ctx;
}

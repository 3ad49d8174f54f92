/**
 * The composition root of one sandbox, read top to bottom: every service is built here, after what
 * it needs, as a plain constant (dependencies passed in, config read once), and every registration
 * (due work, kind descriptors, settled and reset listeners) is made here, where a reader sees the
 * whole wiring; a sandbox of the registry has its scenario reloaded on reset by `keepScenario`
 * here too. src/compose.ts adds only, on the root sandbox, the routes of `/_sandbox/sandboxes`
 * (registerSandboxes) and `sandboxList`, for the root's dashboard. `createApp(ctx)` turns a
 * context into HTTP; tests build one on `:memory:` with a ManualClock.
 */

import pino from "pino";
import type { Config } from "./config.js";
import { ClockStore } from "./control/clock-store.js";
import { ControlService } from "./control/control.service.js";
import { CoverageService } from "./coverage/coverage.service.js";
import { backgroundWrites } from "./db/checkpointer.js";
import { type Db, openDb } from "./db/client.js";
import { EventLog } from "./events/event-log.js";
import type { Logger } from "./logger.js";
import { APM_DESCRIPTORS } from "./modules/apm/apm.present.js";
import { ApmService } from "./modules/apm/apm.service.js";
import { HostedPageService } from "./modules/apm/hosted-page.service.js";
import { AuthService } from "./modules/auth/auth.service.js";
import { IdempotencyService } from "./modules/idempotency/idempotency.service.js";
import { MerchantService } from "./modules/merchants/merchants.service.js";
import { FxRates } from "./modules/payments/fx.js";
import { PaymentService } from "./modules/payments/payments.service.js";
import { CARD_DESCRIPTORS } from "./modules/payments/present.js";
import { PAYOUT_DESCRIPTOR } from "./modules/payouts/payouts.present.js";
import { PayoutService } from "./modules/payouts/payouts.service.js";
import { REFUND_DESCRIPTOR } from "./modules/refunds/refunds.present.js";
import { RefundService } from "./modules/refunds/refunds.service.js";
import { SubscriptionBilling } from "./modules/subscriptions/subscriptions.billing.js";
import { SubscriptionsRepo } from "./modules/subscriptions/subscriptions.repo.js";
import { SubscriptionService } from "./modules/subscriptions/subscriptions.service.js";
import { TokenService } from "./modules/tokens/tokens.service.js";
import { TransactionLifecycle } from "./modules/transactions/lifecycle.js";
import { WalletService } from "./modules/wallet/wallet.service.js";
import type { Clock } from "./platform/clock.js";
import { type Ids, timeOrderedIds } from "./platform/ids.js";
import { Recorder } from "./recording/recorder.js";
import type { SandboxSummary } from "./sandboxes/registry.js";
import { OutcomeEngine } from "./scenarios/outcome-engine.js";
import type { Scenario } from "./scenarios/scenario.schema.js";
import { ScenarioService } from "./scenarios/scenario.service.js";
import { DueWorkRunner } from "./scheduler/due-work.js";
import { SubscriptionScheduler } from "./scheduler/subscriptions.js";
import { type Lineage, ROOT_LINEAGE } from "./snapshots/images.js";
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
  /** Everything time-driven: the dispatcher, the transaction deadlines, the subscription scheduler. */
  work: DueWorkRunner;
  clockStore: ClockStore;
  merchants: MerchantService;
  scenarios: ScenarioService;
  auth: AuthService;
  control: ControlService;
  idempotency: IdempotencyService;
  /** Write side of the webhook outbox: enqueue inside the state change's transaction (it wakes the dispatcher). */
  outbox: Outbox;
  /** The webhook dispatcher (a DueWork): sends and retries. */
  webhooks: WebhookDispatcher;
  /** The webhook delivery journal and replay (docs/control-plane.md). */
  journal: WebhookJournal;
  /** The outcome engine: card number → profile, profile + flow + amount → outcome (docs/api.md, docs/scenarios.md). */
  outcomes: OutcomeEngine;
  /** One lifecycle for every kind of transaction: deadlines, settling, the control plane's complete. */
  transactions: TransactionLifecycle;
  /** Card authorizations (payments, one-click and subscription charges) and 3DS. */
  payments: PaymentService;
  /** Card tokens and one-click charges (docs/tokens.md). */
  tokens: TokenService;
  /** Recurring subscriptions: create, get, update, cancel (docs/subscriptions.md). */
  subscriptions: SubscriptionService;
  /** The subscriptions' billing run; the scheduler (a DueWork on `work`) drives it (docs/lifecycles.md#subscriptions, docs/webhooks.md). */
  billing: SubscriptionBilling;
  /** Card refunds (docs/refunds-payouts.md#refunds). */
  refunds: RefundService;
  /** Card payouts (docs/refunds-payouts.md#card-payouts). */
  payouts: PayoutService;
  /** APM pay-ins and payouts (docs/apm.md, docs/apm.md#payouts). */
  apm: ApmService;
  /** The HPP and QR pages of APM transactions (docs/apm.md#the-hosted-payment-page). */
  hostedPages: HostedPageService;
  /** Wallet merchant sessions (docs/wallets.md). */
  wallet: WalletService;
  /** The live events of this sandbox (docs/events.md): written with each change, read by `GET /_sandbox/events`. */
  events: EventLog;
  /** What was done here, call by call, for GET /_sandbox/recording (docs/recording.md). */
  recorder: Recorder;
  /** Which payment behaviours happened here, for GET /_sandbox/coverage (docs/coverage.md). */
  coverage: CoverageService;
  /**
   * Loads a scenario document (a 400 naming the path when invalid), and every later reset loads it
   * again, as the root's reloads its start files (a sandbox's scenario, docs/parallel-suites.md).
   */
  keepScenario(document: unknown, source: string): Scenario;
  /** Where it came from: what its snapshot says, and the image `reset {"snapshot": true}` goes back to (docs/snapshots.md). */
  lineage: Lineage;
  /** The server's other sandboxes (docs/parallel-suites.md), for the root's dashboard; set by src/compose.ts on the root only. */
  sandboxList?: () => readonly SandboxSummary[];
  /**
   * A new sandbox of the server, a copy of this one now (docs/snapshots.md), for the dashboard's Fork;
   * set by src/compose.ts (a context outside a server, startSandbox's, has none).
   */
  fork?: () => Promise<SandboxSummary>;
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
  /** Live events: real ms between keep-alives of an idle stream (tests shorten the 15 s). */
  events?: { keepAliveMs?: number };
  /**
   * The database is a new sandbox's image as it was made (src/compose.ts): the built-in merchant is
   * in it and nothing was in flight, so neither is written or read again.
   */
  fresh?: boolean;
  /** A sandbox's scenario from its create, opened again: kept as `keepScenario` keeps one, not loaded now. */
  keptScenario?: { document: unknown; source: string };
  /** A sandbox's lineage (src/compose.ts); the root's by default. */
  lineage?: Lineage;
}

export function createContext(opts: ContextOptions): AppContext {
  const { config, clock } = opts;
  const db = opts.db ?? openDb(config.db);
  const ids = opts.ids ?? timeOrderedIds(clock);
  const logger = opts.logger ?? pino({ level: "silent" });
  const publicUrl = opts.publicUrl ?? (() => config.publicUrl ?? `http://localhost:${config.port}`);

  // platform-level services; the live events first: everything after may write them (docs/events.md)
  const events = new EventLog({ db, keep: config.eventsKeep, ...opts.events });
  const recorder = new Recorder({ db, keep: config.recordingKeep });
  // folds the event log after commit; `seen` is how the few behaviours no log shows are noted (docs/coverage.md)
  const coverage = new CoverageService({ db, clock, events, origin: () => (opts.lineage ?? ROOT_LINEAGE).origin() });
  const seen = coverage.seen;
  const work = new DueWorkRunner({ clock, writes: backgroundWrites(db.$client) });
  const clockStore = new ClockStore({ db, clock });
  const merchants = new MerchantService(db);
  if (!opts.fresh) merchants.seedBuiltin();
  const scenarios = new ScenarioService({ db, clock, merchants });
  scenarios.onLoad((s) => events.scenario(s.name));
  const outcomes = new OutcomeEngine(scenarios);
  const fx = new FxRates(scenarios);
  const idempotency = new IdempotencyService({ db, clock, seen });
  const auth = new AuthService({ db, clock, merchants });

  // webhooks: every enqueue wakes the dispatcher after its transaction commits
  const webhooks = new WebhookDispatcher(db, clock, () => work.poke(), { logger, ...opts.webhooks });
  const outbox = new Outbox({ db, clock, ids, dispatch: webhooks });
  const journal = new WebhookJournal({ db, clock, ids, poke: () => work.poke(), seen });
  webhooks.onAttempt((a) => events.webhook(a));

  // the transaction lifecycle and the kinds on it
  const transactions = new TransactionLifecycle({ db, clock, outbox, merchantOf: (key) => merchants.byKey(key), seen });
  for (const d of [...CARD_DESCRIPTORS, REFUND_DESCRIPTOR, PAYOUT_DESCRIPTOR, ...APM_DESCRIPTORS]) transactions.register(d);
  transactions.onChange((row, merchant) => events.transaction(row, merchant.mid));
  const payments = new PaymentService({ db, clock, ids, outcomes, fx, idempotency, lifecycle: transactions, publicUrl });
  const tokens = new TokenService({ db, clock, ids, outcomes, idempotency, payments, tokenTtlDays: config.tokenTtlDays });
  const subscriptionsRepo = new SubscriptionsRepo(db);
  const subscriptions = new SubscriptionService({
    db,
    clock,
    ids,
    repo: subscriptionsRepo,
    idempotency,
    payments,
    tokens,
    maxRetries: config.maxRetries,
    seen,
  });
  const billing = new SubscriptionBilling({ db, clock, logger, repo: subscriptionsRepo, payments, merchants, outbox, seen });
  const refunds = new RefundService({ clock, ids, outcomes, idempotency, lifecycle: transactions });
  const payouts = new PayoutService({ clock, ids, outcomes, idempotency, lifecycle: transactions });
  const apm = new ApmService({ db, clock, ids, outcomes, fx, idempotency, lifecycle: transactions, publicUrl });
  const hostedPages = new HostedPageService({ db, clock, lifecycle: transactions, seen });
  const wallet = new WalletService(clock);
  transactions.onSettled((row) => billing.onSettled(row));
  transactions.onSettled((row) => refunds.onSettled(row));

  // time-driven work, in one runner; attempts a crash left in flight are recorded before anything runs
  if (!opts.fresh) webhooks.recover();
  work.register(webhooks);
  work.register(transactions);
  work.register(new SubscriptionScheduler({ subscriptions: billing, clock }));

  const lineage = opts.lineage ?? ROOT_LINEAGE;
  const control = new ControlService({
    config,
    db,
    clock,
    clockStore,
    work,
    merchants,
    scenarios,
    events,
    origin: lineage.origin,
  });
  // deliveries parked in memory (a destination at its limit) are forgotten with the rows they point at
  control.onReset(() => webhooks.clear());
  // coverage counts since the last reset: its fold goes on after the reset's event
  control.onReset((restored) => coverage.afterReset(restored));
  // a kept scenario is loaded again by every reset (docs/parallel-suites.md)
  // (not after a copy's reset to its snapshot: what was loaded then is back already, docs/snapshots.md)
  const reloadOnReset = (document: unknown, source: string) =>
    control.onReset((restored) => restored || scenarios.load(document, source));
  if (opts.keptScenario) reloadOnReset(opts.keptScenario.document, opts.keptScenario.source);
  const keepScenario = (document: unknown, source: string): Scenario => {
    const scenario = scenarios.load(document, source);
    reloadOnReset(scenario, source);
    return scenario;
  };

  return {
    config,
    db,
    clock,
    ids,
    logger,
    lineage,
    publicUrl,
    work,
    clockStore,
    merchants,
    scenarios,
    auth,
    control,
    idempotency,
    outbox,
    webhooks,
    journal,
    outcomes,
    transactions,
    payments,
    tokens,
    subscriptions,
    billing,
    refunds,
    payouts,
    apm,
    hostedPages,
    wallet,
    events,
    recorder,
    coverage,
    keepScenario,
  };
}

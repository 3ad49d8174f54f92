-- A card payment writes fewer pages a commit (docs/performance.md "The pages a payment writes").
-- 1. webhook_tx_idx keeps only the deliveries whose orderKey is not their transaction (a
--    subscription's charges, replays, chaos's copies). A transaction's own deliveries (orderKey =
--    its id) are found by webhook_order_idx; src/db/schema/webhooks.ts ofTransaction asks both.
-- 2. events, recorded_calls and webhook_attempts lose AUTOINCREMENT: their ids are plain rowids
--    (the largest + 1), so a commit that writes them no longer rewrites the sqlite_sequence page.
--    No id goes back: the newest event is never pruned nor reset, and the other two are read by
--    their own order only. webhook_deliveries keeps AUTOINCREMENT: its seq never goes back across
--    a reset that empties it (the dispatcher and recorded calls' webhooks_up_to compare seqs).
--    The rebuilt tables are renamed with legacy_alter_table on, as SQLite's own procedure for a
--    table change says: the triggers of migration 0009 name them, and a rename would otherwise
--    check those triggers while their table is gone.
DROP INDEX `webhook_tx_idx`;--> statement-breakpoint
CREATE INDEX `webhook_tx_idx` ON `webhook_deliveries` (`transaction_id`) WHERE "webhook_deliveries"."transaction_id" <> "webhook_deliveries"."order_key";--> statement-breakpoint
PRAGMA legacy_alter_table = ON;--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` integer PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`transaction_id` text,
	`merchant` text,
	`data` text NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_events`("id", "type", "transaction_id", "merchant", "data") SELECT "id", "type", "transaction_id", "merchant", "data" FROM `events`;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
CREATE TABLE `__new_recorded_calls` (
	`id` integer PRIMARY KEY NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`method` text NOT NULL,
	`path` text NOT NULL,
	`merchant_key` text,
	`body` text,
	`status` integer NOT NULL,
	`response` text,
	`webhooks_up_to` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_recorded_calls`("id", "at", "kind", "method", "path", "merchant_key", "body", "status", "response", "webhooks_up_to") SELECT "id", "at", "kind", "method", "path", "merchant_key", "body", "status", "response", "webhooks_up_to" FROM `recorded_calls`;--> statement-breakpoint
DROP TABLE `recorded_calls`;--> statement-breakpoint
ALTER TABLE `__new_recorded_calls` RENAME TO `recorded_calls`;--> statement-breakpoint
CREATE TABLE `__new_webhook_attempts` (
	`id` integer PRIMARY KEY NOT NULL,
	`delivery_id` text NOT NULL,
	`n` integer NOT NULL,
	`at` integer NOT NULL,
	`http_status` integer,
	`error` text,
	`duration_ms` integer
);
--> statement-breakpoint
INSERT INTO `__new_webhook_attempts`("id", "delivery_id", "n", "at", "http_status", "error", "duration_ms") SELECT "id", "delivery_id", "n", "at", "http_status", "error", "duration_ms" FROM `webhook_attempts`;--> statement-breakpoint
DROP TABLE `webhook_attempts`;--> statement-breakpoint
ALTER TABLE `__new_webhook_attempts` RENAME TO `webhook_attempts`;--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`n`);--> statement-breakpoint
PRAGMA legacy_alter_table = OFF;

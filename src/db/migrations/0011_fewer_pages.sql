-- A card payment's delivery writes one index page fewer (docs/performance.md "The pages a payment
-- writes"): webhook_tx_idx keeps only the deliveries whose orderKey is not their transaction (a
-- subscription's charges, replays, chaos's copies). A transaction's own deliveries (orderKey = its
-- id) are found by webhook_order_idx; src/db/schema/webhooks.ts ofTransaction asks both indexes.
DROP INDEX `webhook_tx_idx`;--> statement-breakpoint
CREATE INDEX `webhook_tx_idx` ON `webhook_deliveries` (`transaction_id`) WHERE "webhook_deliveries"."transaction_id" <> "webhook_deliveries"."order_key";
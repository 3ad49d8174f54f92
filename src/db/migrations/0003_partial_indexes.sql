DROP INDEX `transactions_due_idx`;--> statement-breakpoint
DROP INDEX `transactions_subscription_idx`;--> statement-breakpoint
DROP INDEX `transactions_parent_idx`;--> statement-breakpoint
CREATE INDEX `transactions_due_idx` ON `transactions` (`due_at`) WHERE "transactions"."due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_subscription_idx` ON `transactions` (`subscription_id`) WHERE "transactions"."subscription_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `transactions_parent_idx` ON `transactions` (`parent_id`) WHERE "transactions"."parent_id" IS NOT NULL;--> statement-breakpoint
DROP INDEX `webhook_due_idx`;--> statement-breakpoint
DROP INDEX `webhook_sub_idx`;--> statement-breakpoint
CREATE INDEX `webhook_due_idx` ON `webhook_deliveries` (`next_attempt_at`) WHERE "webhook_deliveries"."next_attempt_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `webhook_sub_idx` ON `webhook_deliveries` (`subscription_id`) WHERE "webhook_deliveries"."subscription_id" IS NOT NULL;
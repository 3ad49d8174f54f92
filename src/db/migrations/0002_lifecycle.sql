ALTER TABLE `merchants` ADD `name` text;--> statement-breakpoint
ALTER TABLE `merchants` ADD `webhook_chaos` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `parent_id` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `payment_method` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `decline_sub_reason` text;--> statement-breakpoint
ALTER TABLE `transactions` ADD `details` text;--> statement-breakpoint
CREATE INDEX `transactions_parent_idx` ON `transactions` (`parent_id`);--> statement-breakpoint
CREATE INDEX `transactions_merchant_updated_idx` ON `transactions` (`merchant_key`,`updated_at`);--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `chaos` text;
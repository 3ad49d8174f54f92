CREATE TABLE `card_tokens` (
	`token` text PRIMARY KEY NOT NULL,
	`merchant_key` text NOT NULL,
	`request_id` text NOT NULL,
	`card_bin` text NOT NULL,
	`card_last4` text NOT NULL,
	`exp_month` text NOT NULL,
	`exp_year` text NOT NULL,
	`card_holder` text,
	`card_brand` text,
	`card_type` text,
	`issuing_bank` text,
	`card_country` text,
	`card_profile` text NOT NULL,
	`expiration_date` text NOT NULL,
	`billing_details` text,
	`metadata` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `card_tokens_merchant_idx` ON `card_tokens` (`merchant_key`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_key` text NOT NULL,
	`request_id` text NOT NULL,
	`card_token` text NOT NULL,
	`status` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`frequency` text NOT NULL,
	`interval` integer NOT NULL,
	`start_date` text NOT NULL,
	`end_date` text,
	`next_charge_date` text,
	`next_charge_at` integer,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`charge_count` integer DEFAULT 0 NOT NULL,
	`max_retries` integer NOT NULL,
	`skip_first_charge` integer DEFAULT false NOT NULL,
	`first_transaction_id` text,
	`callback_url` text NOT NULL,
	`success_redirect_url` text NOT NULL,
	`failure_redirect_url` text NOT NULL,
	`billing_details` text,
	`order_data` text,
	`device` text,
	`metadata` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `subscriptions_due_idx` ON `subscriptions` (`status`,`next_charge_at`);--> statement-breakpoint
CREATE INDEX `subscriptions_merchant_idx` ON `subscriptions` (`merchant_key`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`merchant_key` text NOT NULL,
	`operation` text NOT NULL,
	`request_id` text NOT NULL,
	`body_hash` text NOT NULL,
	`http_status` integer NOT NULL,
	`response` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`merchant_key`, `operation`, `request_id`)
);
--> statement-breakpoint
CREATE TABLE `merchants` (
	`merchant_key` text PRIMARY KEY NOT NULL,
	`merchant_secret` text NOT NULL,
	`mid` text NOT NULL,
	`merchant_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`processing_currency` text,
	`wallet_domains` text NOT NULL,
	`source` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_mid_unique` ON `merchants` (`mid`);--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_merchant_id_unique` ON `merchants` (`merchant_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `merchants_account_id_unique` ON `merchants` (`account_id`);--> statement-breakpoint
CREATE TABLE `sandbox_state` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `scenarios` (
	`name` text PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`source` text NOT NULL,
	`loaded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `transactions` (
	`id` text PRIMARY KEY NOT NULL,
	`merchant_key` text NOT NULL,
	`kind` text NOT NULL,
	`request_id` text,
	`status` text NOT NULL,
	`decline_code` integer,
	`card_bin` text,
	`card_last4` text,
	`card_exp_month` text,
	`card_exp_year` text,
	`card_holder` text,
	`card_brand` text,
	`card_profile` text,
	`token_id` text,
	`subscription_id` text,
	`order_currency` text NOT NULL,
	`order_amount` integer NOT NULL,
	`processed_currency` text NOT NULL,
	`processed_amount` integer NOT NULL,
	`conversion_rate` text NOT NULL,
	`three_ds` integer DEFAULT false NOT NULL,
	`lang` text,
	`callback_url` text,
	`success_redirect_url` text,
	`failure_redirect_url` text,
	`billing_details` text,
	`order_data` text,
	`device` text,
	`metadata` text,
	`due_at` integer,
	`due_status` text,
	`due_decline_code` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `transactions_merchant_idx` ON `transactions` (`merchant_key`,`created_at`);--> statement-breakpoint
CREATE INDEX `transactions_due_idx` ON `transactions` (`due_at`);--> statement-breakpoint
CREATE INDEX `transactions_subscription_idx` ON `transactions` (`subscription_id`);--> statement-breakpoint
CREATE TABLE `webhook_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` text NOT NULL,
	`n` integer NOT NULL,
	`at` integer NOT NULL,
	`http_status` integer,
	`error` text,
	`duration_ms` integer
);
--> statement-breakpoint
CREATE INDEX `webhook_attempts_delivery_idx` ON `webhook_attempts` (`delivery_id`,`n`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`merchant_key` text NOT NULL,
	`kind` text NOT NULL,
	`order_key` text NOT NULL,
	`transaction_id` text,
	`subscription_id` text,
	`event_status` text NOT NULL,
	`url` text NOT NULL,
	`headers` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempt_count` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`in_flight_since` integer,
	`replay_of` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `webhook_deliveries_id_unique` ON `webhook_deliveries` (`id`);--> statement-breakpoint
CREATE INDEX `webhook_due_idx` ON `webhook_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `webhook_order_idx` ON `webhook_deliveries` (`order_key`,`seq`);--> statement-breakpoint
CREATE INDEX `webhook_tx_idx` ON `webhook_deliveries` (`transaction_id`);--> statement-breakpoint
CREATE INDEX `webhook_sub_idx` ON `webhook_deliveries` (`subscription_id`);
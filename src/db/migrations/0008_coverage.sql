CREATE TABLE `coverage_seen` (
	`behaviour` text PRIMARY KEY NOT NULL,
	`count` integer NOT NULL,
	`first_at` integer NOT NULL,
	`transaction_id` text,
	`subscription_id` text,
	`delivery_id` text,
	`request` text
);

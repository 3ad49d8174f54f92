CREATE TABLE `sandboxes` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text,
	`start_ms` integer NOT NULL,
	`scenario` text,
	`ttl_ms` integer NOT NULL,
	`created_real` integer NOT NULL,
	`last_used_real` integer NOT NULL,
	`clock_ms` integer NOT NULL,
	`clock_real` integer NOT NULL,
	`wake_real` integer
);

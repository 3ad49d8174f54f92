ALTER TABLE `card_tokens` ADD `card_length` integer;--> statement-breakpoint
ALTER TABLE `transactions` ADD `card_length` integer;
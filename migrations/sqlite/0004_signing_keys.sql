CREATE TABLE `counted_images` (
	`account_id` text NOT NULL,
	`period` text NOT NULL,
	`content_address` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`account_id`, `period`, `content_address`),
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`secret` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `signing_keys_account_idx` ON `signing_keys` (`account_id`);
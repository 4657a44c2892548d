CREATE TABLE `account_fonts` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`family` text NOT NULL,
	`family_key` text NOT NULL,
	`weight` integer NOT NULL,
	`style` text NOT NULL,
	`format` text NOT NULL,
	`bytes` integer NOT NULL,
	`glyphs` integer NOT NULL,
	`variable` integer NOT NULL,
	`digest` text NOT NULL,
	`data` blob NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `account_fonts_face` ON `account_fonts` (`account_id`,`family_key`,`weight`,`style`);--> statement-breakpoint
CREATE INDEX `account_fonts_digest` ON `account_fonts` (`digest`);
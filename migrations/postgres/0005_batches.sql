CREATE TABLE "batch_items" (
	"batch_id" text NOT NULL,
	"idx" integer NOT NULL,
	"seq" bigserial NOT NULL,
	"status" text NOT NULL,
	"body" text NOT NULL,
	"url" text,
	"error" text,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_until" bigint,
	"claimed_by" integer,
	CONSTRAINT "batch_items_batch_id_idx_pk" PRIMARY KEY("batch_id","idx")
);
--> statement-breakpoint
CREATE TABLE "batches" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"account_id" text NOT NULL,
	"signing_key_id" text NOT NULL,
	"request_id" text NOT NULL,
	"period" text NOT NULL,
	"status" text NOT NULL,
	"total" integer NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"failed" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"finished_at" bigint
);
--> statement-breakpoint
ALTER TABLE "usage_periods" ADD COLUMN "batch_reserved" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "batch_items" ADD CONSTRAINT "batch_items_batch_id_batches_id_fk" FOREIGN KEY ("batch_id") REFERENCES "public"."batches"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "batches" ADD CONSTRAINT "batches_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "batch_items_status_idx" ON "batch_items" USING btree ("status","seq");--> statement-breakpoint
CREATE INDEX "batches_account_idx" ON "batches" USING btree ("account_id","created_at");
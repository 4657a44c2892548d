CREATE TABLE "counted_images" (
	"account_id" text NOT NULL,
	"period" text NOT NULL,
	"content_address" text NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "counted_images_account_id_period_content_address_pk" PRIMARY KEY("account_id","period","content_address")
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"seq" bigserial NOT NULL,
	"account_id" text NOT NULL,
	"secret" text NOT NULL,
	"created_at" bigint NOT NULL,
	"last_used_at" bigint
);
--> statement-breakpoint
ALTER TABLE "counted_images" ADD CONSTRAINT "counted_images_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "signing_keys" ADD CONSTRAINT "signing_keys_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "signing_keys_account_idx" ON "signing_keys" USING btree ("account_id");
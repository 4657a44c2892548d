CREATE TABLE "account_fonts" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" text NOT NULL,
	"family" text NOT NULL,
	"family_key" text NOT NULL,
	"weight" integer NOT NULL,
	"style" text NOT NULL,
	"format" text NOT NULL,
	"bytes" integer NOT NULL,
	"glyphs" integer NOT NULL,
	"variable" boolean NOT NULL,
	"digest" text NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_fonts" ADD CONSTRAINT "account_fonts_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_fonts_face" ON "account_fonts" USING btree ("account_id","family_key","weight","style");--> statement-breakpoint
CREATE INDEX "account_fonts_digest" ON "account_fonts" USING btree ("digest");
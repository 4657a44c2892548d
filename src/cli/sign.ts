/**
 * `ogsmith sign`: prints a signed image URL for a request body, offline (no server, no
 * database): what a static-site build or a template helper runs to fill `<meta og:image>`.
 *
 *   OG_SIGNING_SECRET=ogsk_… ogsmith sign --key-id sk_… --json '<request body>'
 *                [--secret-file PATH|-] [--format png|jpg|webp] [--expires-in 7d] [--base-url URL]
 *
 * The secret comes from OG_SIGNING_SECRET or a file (`-`: standard input), so it stays out of
 * shell history, process lists and CI logs; `--secret` still works for a one-off. It is never
 * printed, not even in an error. The body is validated like POST /api/generate (templates from OG_TEMPLATES_DIR included), so
 * a URL that the server would answer with 400 is refused here instead. A template id unknown
 * here, given with `template_version` (the signed `v`), is taken for one of the account's own
 * templates (only the server knows those), with a note on stderr. Exit codes: 0 printed,
 * 1 the body is invalid, 2 usage error.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { systemClock } from "../clock.ts";
import type { Config } from "../config.ts";
import { silentLogger } from "../logger.ts";
import { ApiError, validationError } from "../errors.ts";
import { parseRenderRequest } from "../render/request.ts";
import { prepareRendering } from "../render/setup.ts";
import {
  buildSignedUrl,
  parseDuration,
  signableFromBody,
  SIGNING_KEY_ID_PATTERN,
  SIGNING_SECRET_PATTERN,
  SigningInputError,
  withExpiry,
} from "../signing/index.ts";
import { describeFailure } from "./render-items.ts";
import { UsageError } from "./output.ts";

export const SIGN_HELP = `Usage:
  OG_SIGNING_SECRET=ogsk_… ogsmith sign --key-id sk_… --json '<request body>'
  ogsmith sign --key-id sk_… --secret-file PATH --json '<request body>'   (PATH "-": standard input)
               [--format png|jpg|webp] [--expires-in 7d] [--base-url URL]

Prints a signed GET URL for the image the body describes (the JSON of POST /api/generate;
its "format" is used when --format is not given). --expires-in adds "exp" (90s, 15m, 12h, 7d,
2w; a bare number is seconds). --base-url defaults to OG_BASE_URL. No server or database is
needed: the signature is computed here with the signing key's secret, read from
OG_SIGNING_SECRET or --secret-file (--secret ogsk_… also works, but puts the secret in shell
history and process lists). An account's own template is known only to the server: give its
"template_version" (signed as "v") and its fields are checked when the URL is fetched.

Exit status: 0 printed, 1 the body is invalid (each bad field named), 2 usage error.`;

const usage = (message: string) => new UsageError(`${message}\n\n${SIGN_HELP}`);

/** Where the secret came from, for errors (never the secret itself). */
type SecretSource = "--secret" | "--secret-file" | "OG_SIGNING_SECRET";

/** The signing secret from the flag, the file (`-`: standard input) or the environment, in that order. */
async function readSecret(config: Config, values: { secret?: string; "secret-file"?: string }): Promise<{ secret: string; from: SecretSource }> {
  if (values.secret !== undefined && values["secret-file"] !== undefined) throw usage("use --secret-file or --secret, not both");
  if (values.secret !== undefined) return { secret: values.secret, from: "--secret" };
  const path = values["secret-file"];
  if (path !== undefined) {
    let text: string;
    try {
      text = path === "-" ? await Bun.stdin.text() : readFileSync(path, "utf8");
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code ?? "unreadable";
      throw usage(`cannot read --secret-file ${path === "-" ? "(standard input)" : path}: ${reason}`);
    }
    return { secret: text.trim(), from: "--secret-file" };
  }
  if (config.signingSecret !== undefined) return { secret: config.signingSecret, from: "OG_SIGNING_SECRET" };
  throw usage("no signing secret: set OG_SIGNING_SECRET, or pass --secret-file PATH (- reads standard input)");
}

export async function runSign(config: Config, argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "key-id": { type: "string" },
      secret: { type: "string" },
      "secret-file": { type: "string" },
      json: { type: "string" },
      format: { type: "string" },
      "expires-in": { type: "string" },
      "base-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    console.log(SIGN_HELP);
    return 0;
  }
  // Not echoed: a stray argument may well be a secret pasted in the wrong place.
  if (positionals.length) throw usage(`unexpected argument (${positionals.length === 1 ? "one" : positionals.length} not after a flag): sign takes flags only`);
  const keyId = values["key-id"];
  if (keyId === undefined || values.json === undefined) throw usage("--key-id and --json are required");
  if (!SIGNING_KEY_ID_PATTERN.test(keyId)) throw usage("--key-id must be a signing key id: sk_ followed by 20 letters and digits");
  const { secret, from } = await readSecret(config, values);
  // The secret itself is never echoed back, not even in an error.
  if (!SIGNING_SECRET_PATTERN.test(secret)) throw usage(`the secret from ${from} must be a signing key secret: ogsk_ followed by 43 base64url characters`);
  const format = values.format;
  if (format !== undefined && !["png", "jpg", "jpeg", "webp"].includes(format)) throw usage("--format must be png, jpg or webp");
  let expiresIn: number | undefined;
  if (values["expires-in"] !== undefined) {
    expiresIn = parseDuration(values["expires-in"]);
    if (expiresIn === undefined) throw usage("--expires-in must be a duration such as 3600, 90s, 15m, 12h, 7d or 2w");
  }
  let baseUrl = config.baseUrl;
  if (values["base-url"] !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(values["base-url"]);
    } catch {}
    if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:") || parsed.search || parsed.hash) {
      throw usage("--base-url must be an http(s) URL without a query or fragment");
    }
    baseUrl = values["base-url"];
  }
  let body: unknown;
  try {
    body = JSON.parse(values.json);
  } catch (error) {
    throw usage(`--json is not valid JSON: ${(error as Error).message}`);
  }

  let image;
  try {
    image = signableFromBody(body, format);
  } catch (error) {
    if (error instanceof SigningInputError) {
      console.error(`ogsmith: cannot sign: ${error.message}`);
      return 1;
    }
    throw error;
  }
  // Validate as the server will, so a typo fails now rather than as a broken og:image later.
  // An account's own template is known only to the server: with `template_version` (signed as
  // `v`), an id no built-in or operator template has here is taken for one, and its fields are
  // checked when the URL is fetched.
  const { templates } = await prepareRendering({ templatesDir: config.templatesDir, fontsDir: undefined, logger: silentLogger });
  const { template_version: version, ...fields } = body as Record<string, unknown>;
  if (version !== undefined && !templates.get(image.template)) {
    console.error(`ogsmith: note: ${image.template} is not a built-in or operator template here; signed as an account template (the server checks its fields)`);
  } else {
    try {
      parseRenderRequest({ ...fields, template: image.template, format: image.ext === "jpg" ? "jpeg" : image.ext }, templates, { values: "url" });
      if (version !== undefined)
        throw validationError([{ field: "template_version", message: `only account templates have versions; ${image.template} has none` }]);
    } catch (error) {
      const hint = error instanceof ApiError && error.code === "UNKNOWN_TEMPLATE" ? " (an account template? give its template_version to sign it)" : "";
      console.error(`ogsmith: cannot sign: ${describeFailure(error)}${hint}`);
      return 1;
    }
  }
  const params = expiresIn === undefined ? image.params : withExpiry(image.params, expiresIn, systemClock.now());
  console.log(buildSignedUrl({ baseUrl, keyId, secret, template: image.template, ext: image.ext, params }));
  return 0;
}

/**
 * `bun run scripts/starter-pictures.ts [id…]`: draws the pictures of the starter designs from
 * their sample values with the in-process renderer (satori + resvg, no images set) and writes
 *   docs/images/starters/<id>-dark.png, <id>-light.png  (1200×630, scaled to 480×252)
 *   docs/images/starters/<id>-square.png                (1080×1080 dark, scaled to 240×240)
 * each reduced to a 160-colour palette with ImageMagick (`convert`, which must be on the PATH)
 * so the repository stays small. Without ids, every starter.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderTemplate } from "../src/render/engines/in-process.ts";
import { accountTemplateDefinition, parseAccountTemplate } from "../src/templates/account/index.ts";
import type { Theme } from "../src/templates/types.ts";

const ROOT = join(import.meta.dir, "..");
const STARTERS = join(ROOT, "templates/starters");
const DOCS = join(ROOT, "docs/images/starters");

const PICTURES: Array<{ file: (id: string) => string; theme: Theme; width: number; height: number; scaled: string }> = [
  { file: (id) => join(DOCS, `${id}-dark.png`), theme: "dark", width: 1200, height: 630, scaled: "480x252" },
  { file: (id) => join(DOCS, `${id}-light.png`), theme: "light", width: 1200, height: 630, scaled: "480x252" },
  { file: (id) => join(DOCS, `${id}-square.png`), theme: "dark", width: 1080, height: 1080, scaled: "240x240" },
];

const wanted = process.argv.slice(2);
const ids = readdirSync(STARTERS)
  .filter((name) => name.endsWith(".json"))
  .map((name) => name.replace(/\.json$/, ""))
  .filter((id) => wanted.length === 0 || wanted.includes(id));
const scratch = mkdtempSync(join(tmpdir(), "starter-pictures-"));
try {
  for (const id of ids) {
    const spec = parseAccountTemplate(JSON.parse(readFileSync(join(STARTERS, `${id}.json`), "utf8")));
    const template = accountTemplateDefinition(spec);
    for (const picture of PICTURES) {
      const { bytes } = await renderTemplate(template, spec.sample, { width: picture.width, height: picture.height, theme: picture.theme, images: {} });
      const full = join(scratch, "full.png");
      await Bun.write(full, bytes);
      const convert = Bun.spawnSync(["convert", full, "-resize", picture.scaled, "-strip", "-colors", "160", `PNG8:${picture.file(id)}`]);
      if (convert.exitCode !== 0) throw new Error(`convert failed for ${picture.file(id)}: ${convert.stderr.toString()}`);
      console.log(picture.file(id).slice(ROOT.length + 1));
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

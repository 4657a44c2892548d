/**
 * Sample cards for every bundled script (not part of `bun test`): `bun test/unit/render/script-samples.ts [dir]`
 * writes one contact sheet per template and theme, to look at after changing fonts or text layout.
 */
import { Resvg } from "@resvg/resvg-js";
import { mkdirSync, writeFileSync } from "node:fs";
import { createInProcessRenderer } from "../../../src/render/engines/in-process.ts";
import { createTemplateRegistry } from "../../../src/templates/registry.ts";
import { renderRequest } from "../../support/render-request.ts";

export const SAMPLES: Record<string, { title: string; subtitle?: string }> = {
  "zh-CN": { title: "开源的社交图片生成服务", subtitle: "简体中文：自托管，无需网络" },
  "zh-TW": { title: "開源的社交圖片產生服務", subtitle: "繁體中文：自行架設，無需網路" },
  ja: { title: "こんにちは、日本語のタイトル", subtitle: "ひらがな・カタカナ・漢字" },
  ko: { title: "안녕하세요 한국어 제목입니다", subtitle: "오픈 소스 이미지 서비스" },
  ar: { title: "مرحبا بالعالم العربي في يوم جديد", subtitle: "مؤتمر المطورين ٢٠٢٦ في القاهرة" },
  he: { title: "שלום עולם, כותרת בעברית", subtitle: "כנס המפתחים השנתי" },
  "he+latin": { title: "הכנס של React Native 2026 בתל אביב", subtitle: "שלום world" },
  hi: { title: "नमस्ते दुनिया, हिंदी शीर्षक", subtitle: "डेवलपर सम्मेलन" },
  th: { title: "สวัสดีชาวโลก หัวข้อภาษาไทย", subtitle: "การประชุมนักพัฒนา" },
  mixed: { title: "Launch 日本 🚀 한국 中文 ok", subtitle: "Latin, CJK and emoji in one line" },
  missing: { title: "Runes ᚠᚢᚦ and 𓀀 here", subtitle: "no font has these" },
};

if (import.meta.main) {
  const dir = process.argv[2] ?? "/tmp/ogsmith-scripts";
  mkdirSync(dir, { recursive: true });
  const registry = createTemplateRegistry();
  const renderer = createInProcessRenderer();
  const W = 600;
  const H = 315;
  for (const template of ["event", "blog"]) {
    for (const theme of ["dark", "light"] as const) {
      const tiles: string[] = [];
      let i = 0;
      for (const [name, fields] of Object.entries(SAMPLES)) {
        const result = await renderer.render(renderRequest(registry, { template, theme, fields, width: 1200, height: 630, format: "png" }));
        const x = (i % 3) * W;
        const y = Math.floor(i / 3) * H;
        tiles.push(`<image x="${x}" y="${y}" width="${W}" height="${H}" href="data:image/png;base64,${Buffer.from(result.bytes).toString("base64")}"/>`);
        if (result.missingGlyphs?.length)
          console.log(
            template,
            theme,
            name,
            "missing",
            result.missingGlyphs.map((c) => c.toString(16)),
          );
        i++;
      }
      const rows = Math.ceil(i / 3);
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${3 * W}" height="${rows * H}">${tiles.join("")}</svg>`;
      const out = `${dir}/${template}-${theme}.png`;
      writeFileSync(out, new Resvg(svg).render().asPng());
      console.log(out);
    }
  }
  await renderer.close();
}

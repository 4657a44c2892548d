/**
 * The starter designs the dashboard offers as the beginning of an account's template: template
 * definition files under templates/starters/ (with sample values), imported as JSON so
 * `bun build --compile` embeds them. Each is a complete definition: created as is, it renders.
 */
import article from "../../../templates/starters/article.json";
import docsPage from "../../../templates/starters/docs-page.json";
import jobOpening from "../../../templates/starters/job-opening.json";
import openSource from "../../../templates/starters/open-source.json";
import podcastEpisode from "../../../templates/starters/podcast-episode.json";
import productLaunch from "../../../templates/starters/product-launch.json";
import quote from "../../../templates/starters/quote.json";
import releaseNotes from "../../../templates/starters/release-notes.json";
// A small picture of each starter (its sample values, dark theme), next to its definition.
import articlePicture from "../../../templates/starters/article.png" with { type: "file" };
import productLaunchPicture from "../../../templates/starters/product-launch.png" with { type: "file" };
import podcastEpisodePicture from "../../../templates/starters/podcast-episode.png" with { type: "file" };
import jobOpeningPicture from "../../../templates/starters/job-opening.png" with { type: "file" };
import quotePicture from "../../../templates/starters/quote.png" with { type: "file" };
import releaseNotesPicture from "../../../templates/starters/release-notes.png" with { type: "file" };
import docsPagePicture from "../../../templates/starters/docs-page.png" with { type: "file" };
import openSourcePicture from "../../../templates/starters/open-source.png" with { type: "file" };

export interface StarterDefinition {
  id: string;
  name: string;
  description: string;
  html: string;
  fields: { name: string; type: string; required?: boolean; max_length?: number; description?: string }[];
  themes: { dark?: Record<string, string>; light?: Record<string, string> };
  width: number;
  height: number;
  sample: Record<string, string>;
}

/** In the order the dashboard lists them. */
export const STARTERS: readonly StarterDefinition[] = [productLaunch, article, podcastEpisode, jobOpening, quote, releaseNotes, docsPage, openSource];

/** The path (inside the binary once compiled) of each starter's picture, by starter id. */
export const STARTER_PICTURES: ReadonlyMap<string, string> = new Map([
  ["product-launch", productLaunchPicture],
  ["article", articlePicture],
  ["podcast-episode", podcastEpisodePicture],
  ["job-opening", jobOpeningPicture],
  ["quote", quotePicture],
  ["release-notes", releaseNotesPicture],
  ["docs-page", docsPagePicture],
  ["open-source", openSourcePicture],
]);

/**
 * The starter designs the dashboard offers as the beginning of an account's template: template
 * definition files under templates/starters/ (with sample values), imported as JSON so
 * `bun build --compile` embeds them. Each is a complete definition: created as is, it renders.
 */
import docsPage from "../../../templates/starters/docs-page.json";
import jobOpening from "../../../templates/starters/job-opening.json";
import openSource from "../../../templates/starters/open-source.json";
import podcastEpisode from "../../../templates/starters/podcast-episode.json";
import productLaunch from "../../../templates/starters/product-launch.json";
import quote from "../../../templates/starters/quote.json";
import releaseNotes from "../../../templates/starters/release-notes.json";

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
export const STARTERS: readonly StarterDefinition[] = [productLaunch, podcastEpisode, jobOpening, quote, releaseNotes, docsPage, openSource];

/**
 * `ogsmith --licenses`: the third-party notices of what the binary embeds (fonts, emoji
 * graphics, libraries), from THIRD_PARTY_NOTICES.md at the repository root. Imported as text, so
 * `bun build --compile` embeds the file and the binary can show it with nothing beside it.
 */
import notices from "../../THIRD_PARTY_NOTICES.md" with { type: "text" };

export const THIRD_PARTY_NOTICES: string = notices;

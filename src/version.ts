/** The one version string: from package.json, so a release bumps it in one place. */
import pkg from "../package.json" with { type: "json" };

export const VERSION: string = pkg.version;

/**
 * `ogsmith --version`: the version, the platform the binary was built for (running from source,
 * the machine's), and the engines it can draw with here, e.g.
 * `ogsmith 0.2.0 (linux-arm64; engines: satori+resvg, takumi)`.
 *
 * An engine is listed when its native module loads in this process (a release binary carries
 * its own target's, scripts/native.ts), so a binary run on a platform it was not built for, or
 * a source checkout missing a package, says so here instead of on its first render. Loading
 * the two modules takes a few milliseconds; nothing else (server, database, fonts) is loaded.
 */
import { BUILD_TARGET } from "../build-target.ts";
import { loadResvg } from "../render/engines/rasterize.ts";
import { loadTakumiNative } from "../render/engines/takumi-native.ts";
import { hostTarget } from "../platform.ts";
import { VERSION } from "../version.ts";

function loads(load: () => unknown): boolean {
  try {
    load();
    return true;
  } catch {
    return false;
  }
}

export function versionLine(): string {
  const engines = [loads(loadResvg) && "satori+resvg", loads(loadTakumiNative) && "takumi"].filter(Boolean);
  return `ogsmith ${VERSION} (${BUILD_TARGET ?? hostTarget()}; engines: ${engines.length ? engines.join(", ") : "none"})`;
}

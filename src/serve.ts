/**
 * `ogsmith serve`: the HTTP API, dashboard and background worker in one process. Also used by
 * the end-to-end tests, which start the real service on port 0 against a real SQLite file.
 */
import { bootstrapFirstAccount } from "./accounts/bootstrap.ts";
import type { Config } from "./config.ts";
import { createApp, type App } from "./http/app.ts";
import { listen } from "./http/server.ts";
import { Metrics } from "./http/metrics.ts";
import type { Logger } from "./logger.ts";
import { createInProcessRenderer } from "./render/engine.ts";
import { createServices, type Services } from "./services.ts";
import { createTemplateRegistry } from "./templates/registry.ts";

export interface RunningService {
  url: string;
  port: number;
  app: App;
  services: Services;
  /** The key printed by the first-start bootstrap, when it ran. */
  bootstrapKey: string | undefined;
  /** Graceful stop: stop accepting, finish in-flight work, close the database. */
  stop(): Promise<void>;
}

export async function startService(
  config: Config,
  options: { logger?: Logger; print?: (text: string) => void } = {},
): Promise<RunningService> {
  const services = createServices(config, { logger: options.logger });
  services.metering.clearStaleReservations();
  const boot = config.bootstrap ? bootstrapFirstAccount(services.accounts, options.print ?? ((text) => process.stdout.write(text + "\n"))) : undefined;

  const templates = await createTemplateRegistry();
  const renderer = await createInProcessRenderer(templates);
  const app = createApp({ services, renderer, templates, metrics: new Metrics({ processMetrics: true }) });
  const server = listen(app, { port: config.port, host: config.host, logger: services.logger });

  let stopping: Promise<void> | undefined;
  return {
    url: server.url,
    port: server.port,
    app,
    services,
    bootstrapKey: boot?.apiKey,
    stop: () =>
      (stopping ??= (async () => {
        await server.stop();
        await renderer.close();
        services.close();
      })()),
  };
}

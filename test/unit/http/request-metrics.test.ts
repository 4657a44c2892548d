/** The hand-kept request metrics render exactly what prom-client renders for the same observations. */
import { expect, test } from "bun:test";
import { Counter, Histogram, Registry } from "prom-client";
import { DURATION_BUCKETS, DURATION_METRIC, REQUESTS_METRIC, RequestMetrics } from "../../../src/http/request-metrics.ts";

function withPromClient(observations: [string, string, number, number][]): Promise<string> {
  const registry = new Registry();
  const requests = new Counter({ ...REQUESTS_METRIC, labelNames: ["method", "route", "status"], registers: [registry] });
  const duration = new Histogram({ ...DURATION_METRIC, labelNames: ["route"], buckets: DURATION_BUCKETS, registers: [registry] });
  for (const [method, route, status, seconds] of observations) {
    requests.inc({ method, route, status: String(status) });
    duration.observe({ route }, seconds);
  }
  return registry.metrics();
}

function withOurs(observations: [string, string, number, number][]): string {
  const metrics = new RequestMetrics();
  for (const [method, route, status, seconds] of observations) metrics.observe(method, route, status, seconds);
  return metrics.render();
}

test("no requests yet: the same headers and no samples", async () => {
  expect(withOurs([])).toBe(await withPromClient([]));
});

test("counts, buckets (bounds inclusive), sums and label order match prom-client's output", async () => {
  const observations: [string, string, number, number][] = [
    ["GET", "/api/user/usage", 200, 0.0004],
    ["GET", "/api/user/usage", 200, 0.005],
    ["GET", "/api/user/usage", 401, 0.0051],
    ["POST", "/api/generate", 200, 0.31],
    ["POST", "/api/generate", 503, 7.5],
    ["GET", "unmatched", 404, 1],
    ["GET", "/api/user/usage", 200, 2.5],
  ];
  const ours = withOurs(observations);
  expect(ours).toBe(await withPromClient(observations));
  expect(ours).toContain('ogsmith_http_requests_total{method="GET",route="/api/user/usage",status="200"} 3');
  expect(ours).toContain('ogsmith_http_request_duration_seconds_bucket{le="0.005",route="/api/user/usage"} 2');
});

test("label values are escaped like prom-client escapes them", async () => {
  const observations: [string, string, number, number][] = [["GET", 'a"b\\c\nd', 200, 0.01]];
  expect(withOurs(observations)).toBe(await withPromClient(observations));
});

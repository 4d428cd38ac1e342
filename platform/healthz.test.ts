import { expect, test } from "bun:test";
import { type HealthCheck, handleHealth, pingCheck } from "./healthz.ts";
import { captureLogger } from "./testing/logger.ts";

const failing = (name: string, readyzOnly?: boolean): HealthCheck => ({
  name,
  ...(readyzOnly !== undefined && { readyzOnly }),
  check: () => {
    throw new Error(`${name} is down`);
  },
});

const checks = [pingCheck, failing("provider-composite-part-hcloud", true)];

const cases: [string, string, number, string | undefined][] = [
  [
    "a readiness-only check fails /readyz, named in the verbose list",
    "/readyz?verbose",
    500,
    "[+]ping ok\n[-]provider-composite-part-hcloud failed: reason withheld\nreadyz check failed\n",
  ],
  ["a readiness-only check is left out of /healthz (a liveness probe must not restart for it)", "/healthz", 200, "ok"],
  ["a readiness-only check is left out of /livez", "/livez?verbose", 200, "[+]ping ok\nlivez check passed\n"],
  ["a readiness-only check is served alone under /readyz", "/readyz/provider-composite-part-hcloud", 500, undefined],
  [
    "a readiness-only check is not served alone under /healthz",
    "/healthz/provider-composite-part-hcloud",
    0,
    undefined,
  ],
];

for (const [name, path, status, body] of cases) {
  test(name, async () => {
    const answer = await handleHealth(new URL(`https://127.0.0.1${path}`), checks, captureLogger().logger);
    if (status === 0) {
      expect(answer).toBeUndefined();
      return;
    }
    expect(answer?.status).toBe(status);
    if (body !== undefined) expect(await answer?.text()).toBe(body);
  });
}

test("an ordinary failing check still fails /healthz", async () => {
  const answer = await handleHealth(
    new URL("https://127.0.0.1/healthz"),
    [failing("controllers")],
    captureLogger().logger,
  );
  expect(answer?.status).toBe(500);
});

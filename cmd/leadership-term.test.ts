import { describe, expect, test } from "bun:test";
import { ControllerStartError, type StartController } from "../controllers/context.ts";
import { CONTROLLERS } from "../controllers/names.ts";
import { KubeApiError } from "../kube/client-types.ts";
import { FakeClock } from "../kube/testdata/fake-clock.ts";
import type { WriteFence } from "../kube/write-fence.ts";
import { createMetricsRegistry } from "../platform/metrics.ts";
import { EmulatorKubeClient } from "../platform/testing/emulator-client.ts";
import { captureLogger } from "../platform/testing/logger.ts";
import type { CloudProvider, ProviderController } from "../providers/cloud.ts";
import { parseArgv } from "./argv.ts";
import {
  API_HEALTH_WAIT_MS,
  type FatalError,
  runTerm,
  type Starters,
  type TermHealth,
  type TermInput,
} from "./leadership-term.ts";
import { buildOptions } from "./options.ts";

const built = buildOptions(parseArgv(["--cloud-provider=test"]).values);
if (!built.ok) throw new Error(built.errors.join("; "));
const options = built.options;

const declines: StartController = () => ({ started: false, reason: "not under test" });
/** Runs until the signal aborts, like a real controller. */
const runsUntilAborted: StartController = (ctx) => ({
  started: true,
  done: new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true })),
});
const starters = (routes: StartController): Starters =>
  Object.fromEntries(
    CONTROLLERS.map(({ name }) => [name, name === "node-route-controller" ? routes : runsUntilAborted]),
  ) as unknown as Starters;

interface Setup {
  readonly apiDown?: boolean;
  readonly initialize?: () => Promise<void>;
  readonly routes?: StartController;
  readonly controllers?: readonly ProviderController[];
  readonly fence?: WriteFence;
  readonly term?: Pick<TermInput, "runs" | "providerInitialized" | "onProviderInitialized">;
}

const start = ({ apiDown = false, initialize, routes = declines, controllers, fence, term = {} }: Setup) => {
  const clock = new FakeClock();
  const client = new EmulatorKubeClient({ now: clock.now });
  if (apiDown)
    client.fail(
      { method: "raw", path: "/healthz" },
      new KubeApiError("Unauthorized", { status: 401, reason: "Unauthorized" }),
    );
  const { logger, logs } = captureLogger();
  const provider: CloudProvider = {
    providerName: "test",
    hasClusterID: () => true,
    ...(initialize && { initialize }),
    ...(controllers && { controllers }),
  };
  const health: TermHealth = { problem: undefined };
  const fatal: FatalError[] = [];
  const stop = new AbortController();
  const done = runTerm({
    options,
    provider,
    logger,
    client,
    clientFor: () => client,
    registry: createMetricsRegistry(),
    clock,
    starters: starters(routes),
    health,
    signal: stop.signal,
    fence,
    onFatal: (err) => fatal.push(err),
    ...term,
  });
  return { clock, logs, health, fatal, stop, done };
};

describe("runTerm", () => {
  test.each<[string, Setup, string]>([
    [
      "the provider's initialize fails",
      {
        initialize: async () => {
          throw new Error("token rejected by the cloud");
        },
      },
      "cloud provider test failed to initialize: token rejected by the cloud",
    ],
    [
      "a controller's start is fatal",
      {
        routes: () => {
          throw new ControllerStartError("length of clusterCIDRs is:3 more than max allowed of 2");
        },
      },
      "error running controllers: length of clusterCIDRs is:3 more than max allowed of 2",
    ],
    [
      "a running controller crashes",
      { routes: () => ({ started: true as const, done: Promise.reject(new Error("queue corrupted")) }) },
      "a controller failed: queue corrupted",
    ],
    [
      "a provider's own controller crashes",
      { controllers: [{ name: "firewall", run: () => Promise.reject(new Error("firewall loop broke")) }] },
      "a controller failed: firewall loop broke",
    ],
  ])("is fatal when %s, stops what it started, and names the cause in /healthz", async (_name, setup, want) => {
    const t = start(setup);
    await t.done; // the other controllers stop by themselves once the term has failed
    expect(t.fatal.map((e) => e.message)).toEqual([want]);
    expect(t.health.problem).toBe(want);
  });

  test("is fatal when the API server does not answer /healthz in time, logging the cause once per back-off step", async () => {
    const t = start({ apiDown: true });
    await t.clock.advance(1);
    expect(t.health.problem).toBe("waiting for the Kubernetes API server: Unauthorized");
    expect(t.fatal).toEqual([]);
    await t.clock.advance(API_HEALTH_WAIT_MS + 1000);
    await t.done;
    expect(t.fatal.map((e) => e.message)).toEqual([
      "the Kubernetes API server did not answer /healthz within 10s: Unauthorized",
    ]);
    const errors = t.logs.filter((l) => l.type === "error").map((l) => l.message);
    // 21 attempts every 500 ms; logged at 0 s, 1 s, 3 s and 7 s.
    expect(errors).toHaveLength(4);
    expect(errors[0]).toBe("the Kubernetes API server does not answer /healthz: Unauthorized");
  });

  test("runs the provider's own controllers after the shared ones, with the term's signal and write fence, until stopped", async () => {
    const fence: WriteFence = {
      enter: () => ({ signal: new AbortController().signal, end: () => {} }),
    };
    const seen: { fence: WriteFence | undefined; stopped: boolean }[] = [];
    const firewall: ProviderController = {
      name: "firewall",
      run: (ctx) => {
        const entry = { fence: ctx.fence, stopped: false };
        seen.push(entry);
        return new Promise<void>((resolve) => {
          const stop = () => {
            entry.stopped = true;
            resolve();
          };
          ctx.signal.addEventListener("abort", stop, { once: true });
        });
      },
    };
    const t = start({ controllers: [firewall], fence });
    await t.clock.advance(1);
    expect(seen.map((s) => s.fence === fence)).toEqual([true]);
    expect(t.logs.map((l) => l.message)).toContain('started "test/firewall"');
    t.stop.abort();
    await t.done;
    expect(seen.map((s) => s.stopped)).toEqual([true]);
    expect(t.fatal).toEqual([]);
  });

  test("runs until stopped when everything starts, and is healthy", async () => {
    const t = start({});
    await t.clock.advance(1);
    expect(t.health.problem).toBeUndefined();
    t.stop.abort();
    await t.done;
    expect(t.fatal).toEqual([]);
  });

  test("starts only the controllers its lock runs (leader migration)", async () => {
    const t = start({ term: { runs: (name) => name === "service-lb-controller" } });
    await t.clock.advance(1);
    const started = t.logs.filter((l) => l.message.startsWith("started ")).map((l) => l.message);
    expect(started).toEqual(['started "service-lb-controller"']);
    t.stop.abort();
    await t.done;
  });

  test.each([
    ["the lock that runs the service controller runs them", "service-lb-controller", ['started "test/firewall"']],
    ["the other lock does not", "cloud-node-lifecycle-controller", []],
  ])("under leader migration, the provider's own controllers: %s", async (_name, lockRuns, expected) => {
    const firewall: ProviderController = {
      name: "firewall",
      run: (ctx) => new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve())),
    };
    const t = start({ controllers: [firewall], term: { runs: (name) => name === lockRuns } });
    await t.clock.advance(1);
    expect(t.logs.map((l) => l.message).filter((m) => m.startsWith('started "test/'))).toEqual(expected);
    t.stop.abort();
    await t.done;
  });

  test("initialises the provider and says so, or waits for the term that does instead of initialising it again", async () => {
    let initialized = 0;
    const initialize = async () => {
      initialized++;
    };
    let said = 0;
    const first = start({ initialize, term: { onProviderInitialized: () => said++ } });
    await first.clock.advance(1);
    expect([initialized, said]).toEqual([1, 1]);

    let ready = () => {};
    const providerInitialized = new Promise<void>((resolve) => {
      ready = resolve;
    });
    const second = start({ initialize, term: { providerInitialized } });
    await second.clock.advance(1);
    expect(second.logs.some((l) => l.message.startsWith("started "))).toBeFalse();
    ready();
    await second.clock.advance(1);
    expect(second.logs.some((l) => l.message.startsWith("started "))).toBeTrue();
    expect(initialized).toBe(1);
    for (const t of [first, second]) t.stop.abort();
    await Promise.all([first.done, second.done]);
  });
});

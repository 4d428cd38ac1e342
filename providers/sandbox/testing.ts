/**
 * Test support for the sandbox provider's tests: a real simulated cloud on loopback and the provider's HTTP
 * client pointed at it (no mocks), plus small Node and Service builders. Not imported by the provider itself.
 */
import { afterEach, beforeEach } from "bun:test";
import type { Node, Service } from "../../kube/objects.ts";
import { type SimulatedCloud, startSimulatedCloud } from "../../sandbox/cloud/server.ts";
import type { CallContext } from "../cloud.ts";
import type { Arrange } from "../conformance/types.ts";
import { SandboxHttpApi } from "./api/http.ts";
import { sandbox } from "./provider.ts";
import { parseProviderID } from "./provider-id.ts";

export interface TestCloud {
  readonly cloud: SimulatedCloud;
  readonly api: SandboxHttpApi;
  readonly ctx: CallContext;
  stop(): Promise<void>;
}

export const testToken = "test-token";

/** `hold` makes injected latency wait until `release()` — for timeout and abort tests without real waiting. */
export function startTestCloud(options: { timeoutMs?: number } = {}): TestCloud & { release(): void } {
  const waiting: (() => void)[] = [];
  const cloud = startSimulatedCloud({
    token: testToken,
    seed: 11,
    sleep: () => new Promise<void>((resolve) => waiting.push(resolve)),
  });
  // No retries: the provider's tests see each answer as the cloud gave it (api/http.test.ts covers retrying).
  const api = new SandboxHttpApi({
    url: cloud.url,
    token: testToken,
    timeoutMs: options.timeoutMs ?? 30_000,
    retry: { maxRetries: 0 },
  });
  return {
    cloud,
    api,
    ctx: { signal: new AbortController().signal },
    release: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    stop: () => cloud.stop(),
  };
}

/**
 * Registers hooks that give every test of the file a fresh test cloud, stopped after it; call at the top level.
 * The returned object reads the current test's cloud.
 */
export function useTestCloud(): TestCloud {
  let current: TestCloud | undefined;
  beforeEach(() => {
    current = startTestCloud();
  });
  afterEach(() => current?.stop());
  return new Proxy({} as TestCloud, {
    get(_, key: keyof TestCloud) {
      if (!current) throw new Error("useTestCloud: used outside a test");
      return current[key];
    },
  });
}

/** The conformance suite's hooks over a test cloud: machines changed through its own state, as an operator would. */
export function sandboxArrange(cloud: SimulatedCloud): Arrange {
  const { state } = cloud;
  return {
    createMachine({ name }) {
      const m = state.createMachine({ name });
      return { nodeName: m.name, providerID: m.providerID, addresses: m.addresses };
    },
    stopMachine({ providerID }) {
      state.updateMachine(parseProviderID(providerID), { state: "stopped" });
    },
    deleteMachine({ providerID }) {
      state.deleteMachine(parseProviderID(providerID));
    },
    listLoadBalancers: () =>
      state.listLoadBalancers().map((lb) => ({ name: lb.name, hosts: lb.nodes, ports: lb.ports.map((p) => p.port) })),
  };
}

export function node(name: string, tweaks: { providerID?: string; uid?: string } = {}): Node {
  return {
    metadata: { name, ...(tweaks.uid ? { uid: tweaks.uid } : {}) },
    spec: tweaks.providerID ? { providerID: tweaks.providerID } : {},
  };
}

export function service(name: string, uid: string, ports: NonNullable<Service["spec"]>["ports"] = []): Service {
  return { metadata: { name, namespace: "default", uid }, spec: { type: "LoadBalancer", ports } };
}

/**
 * The conformance suite's options for the shipped sandbox declaration in the given `instances` mode, built as the
 * registry builds it from a cloud-config naming a fresh test cloud per check; machines arranged through the cloud's
 * own state.
 */
export function sandboxConformance(options: { readonly instances?: "v2" | "legacy" } = {}) {
  return {
    name: sandbox.name,
    // The provider names load balancers with upstream's defaultLoadBalancerName.
    maxLoadBalancerNameLength: 32,
    async setup() {
      const t = startTestCloud();
      const config = `url: ${t.cloud.url}\ntoken: ${testToken}\ninstances: ${options.instances ?? "v2"}\n`;
      return {
        provider: await sandbox.build({ config, configSource: "conformance", env: {} }, { retry: { maxRetries: 0 } }),
        arrange: sandboxArrange(t.cloud),
        teardown: () => t.stop(),
      };
    },
  };
}

/**
 * Test support for the hcloud provider: the hcloud and Robot emulators side by side, the real API clients on them,
 * and Node fixtures. Nothing in production imports this file.
 */
import { Registry } from "prom-client";
import type { Node, NodeAddress } from "../../kube/objects.ts";
import { createNetwork, createServer, type Harness } from "../../sandbox/hcloud/testing.ts";
import { type RobotEmulator, startRobotEmulator } from "../../sandbox/hrobot/server.ts";
import type { WarningRecorder } from "../kit/warning-events.ts";
import { HcloudNetworks } from "./api/networks.ts";
import { type RobotApi, RobotHttpApi } from "./api/robot.ts";
import { HcloudServers } from "./api/servers.ts";
import { type ApiHarness, startApiHarness } from "./api/testing.ts";
import type { AddressFamily } from "./config.ts";
import { createInstances } from "./instances.ts";
import { type NetworkRef, networkRef } from "./network.ts";

export const ROBOT_USER = "#ws+k8s";
export const ROBOT_PASSWORD = "robot-password-for-tests";

export interface Emulators extends ApiHarness {
  readonly robot: RobotEmulator;
  readonly robotApi: RobotApi;
  readonly servers: HcloudServers;
  readonly networks: HcloudNetworks;
  stop(): Promise<void>;
}

export function startEmulators(options: Parameters<typeof startApiHarness>[0] = {}): Emulators {
  const api = startApiHarness(options);
  const robot = startRobotEmulator({ users: [{ user: ROBOT_USER, password: ROBOT_PASSWORD }], now: api.h.clock.now });
  const robotApi = new RobotHttpApi({
    user: ROBOT_USER,
    password: ROBOT_PASSWORD,
    endpoint: robot.url,
    now: api.h.clock.now,
    retry: { maxRetries: 0 },
    metrics: new Registry(),
  });
  return {
    ...api,
    robot,
    robotApi,
    servers: new HcloudServers(api.t),
    networks: new HcloudNetworks(api.t),
    async stop() {
      await api.h.stop();
      await robot.stop();
    },
  };
}

export interface InstancesSetup {
  readonly network?: string;
  readonly robot?: "off" | "no-credentials" | "on";
  readonly addressFamily?: AddressFamily;
  readonly zoneLabel?: boolean;
  readonly forwardInternalIPs?: boolean;
  /** Where hccm's Robot Node warnings go; default the log alone. */
  readonly warnings?: WarningRecorder<Node>;
}

export function instancesOn(e: Emulators, o: InstancesSetup = {}) {
  const robot = o.robot ?? "on";
  const network: NetworkRef | undefined = o.network === undefined ? undefined : networkRef(e.networks, o.network);
  return createInstances({
    servers: e.servers,
    robot: robot === "on" ? e.robotApi : undefined,
    network,
    config: {
      instances: { addressFamily: o.addressFamily ?? "ipv4", zoneLabel: o.zoneLabel ?? true },
      robot: { enabled: robot !== "off", forwardInternalIPs: o.forwardInternalIPs ?? false },
    },
    ...(o.warnings && { warnings: o.warnings }),
  });
}

/** The emulator's usual cluster: network `k8s` (10.0.0.0/16, subnet 10.0.1.0/24) and servers attached to it. */
export async function cluster(h: Harness, names: readonly string[]): Promise<{ network: number; ids: number[] }> {
  const network = await createNetwork(h, "k8s");
  const ids: number[] = [];
  for (const name of names) ids.push(await createServer(h, name, { networks: [network] }));
  return { network, ids };
}

export type NodeTweak = (n: Node) => void;

export function node(name: string, ...tweaks: NodeTweak[]): Node {
  const n: Node = { apiVersion: "v1", kind: "Node", metadata: { name, uid: `uid-${name}` }, spec: {}, status: {} };
  for (const tweak of tweaks) tweak(n);
  return n;
}

export const providerID =
  (id: string): NodeTweak =>
  (n) => {
    n.spec = { ...n.spec, providerID: id };
  };

export const addresses =
  (...list: NodeAddress[]): NodeTweak =>
  (n) => {
    n.status = { ...n.status, addresses: list };
  };

export const podCIDRs =
  (first: string, ...more: string[]): NodeTweak =>
  (n) => {
    n.spec = { ...n.spec, podCIDR: first, podCIDRs: [first, ...more] };
  };

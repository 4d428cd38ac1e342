import { describe, expect, test } from "bun:test";
import { createRoutes, routeName } from "./routes.ts";
import { useTestCloud } from "./testing.ts";

const t = useTestCloud();

const hint = "6f1c9a2e-0b7d-4c55-9e0f-1a2b3c4d5e6f";

describe("routeName", () => {
  test.each([
    [hint, "10.244.1.0/24", `${hint}-10-244-1-0-24`],
    [hint, "fd00:10:244:1::/64", `${hint}-fd00-10-244-1---64`],
    ["", "10.244.1.0/24", "10-244-1-0-24"],
  ])("%p + %p → %p", (nameHint, cidr, name) => {
    expect(routeName(nameHint, cidr)).toBe(name);
  });
});

describe("sandbox routes", () => {
  test("a dual-stack node gets two routes with distinct names, listed back for its cluster only", async () => {
    const routes = createRoutes(t.api);
    await routes.createRoute(t.ctx, "kubernetes", hint, {
      name: "",
      targetNode: "node-1",
      destinationCIDR: "10.244.1.0/24",
    });
    await routes.createRoute(t.ctx, "kubernetes", hint, {
      name: "",
      targetNode: "node-1",
      destinationCIDR: "fd00:10:244:1::/64",
    });
    await routes.createRoute(t.ctx, "other", "x", { name: "", targetNode: "n", destinationCIDR: "10.9.0.0/24" });
    expect(await routes.listRoutes(t.ctx, "kubernetes")).toEqual([
      { name: `${hint}-10-244-1-0-24`, targetNode: "node-1", destinationCIDR: "10.244.1.0/24" },
      { name: `${hint}-fd00-10-244-1---64`, targetNode: "node-1", destinationCIDR: "fd00:10:244:1::/64" },
    ]);
    expect(t.cloud.state.getRoute(`${hint}-10-244-1-0-24`)?.nameHint).toBe(hint);
  });

  test("creating the same route twice succeeds", async () => {
    const routes = createRoutes(t.api);
    const route = { name: "", targetNode: "node-1", destinationCIDR: "10.244.1.0/24" };
    await routes.createRoute(t.ctx, "kubernetes", hint, route);
    await routes.createRoute(t.ctx, "kubernetes", hint, route);
    expect(t.cloud.state.listRoutes()).toHaveLength(1);
  });

  test("delete removes a listed route; deleting it again succeeds", async () => {
    const routes = createRoutes(t.api);
    await routes.createRoute(t.ctx, "kubernetes", hint, {
      name: "",
      targetNode: "n",
      destinationCIDR: "10.244.1.0/24",
    });
    const [listed] = await routes.listRoutes(t.ctx, "kubernetes");
    await routes.deleteRoute(t.ctx, "kubernetes", listed!);
    await routes.deleteRoute(t.ctx, "kubernetes", listed!);
    expect(await routes.listRoutes(t.ctx, "kubernetes")).toEqual([]);
  });

  test("the cloud-config's cluster overrides --cluster-name for create and list", async () => {
    const routes = createRoutes(t.api, { cluster: "demo" });
    await routes.createRoute(t.ctx, "kubernetes", hint, {
      name: "",
      targetNode: "n",
      destinationCIDR: "10.244.1.0/24",
    });
    expect(t.cloud.state.listRoutes({ cluster: "demo" })).toHaveLength(1);
    expect(await routes.listRoutes(t.ctx, "kubernetes")).toHaveLength(1);
  });

  test("a failed create names the route it was creating", async () => {
    t.cloud.faults.set({ errorRate: 1 });
    const create = createRoutes(t.api).createRoute(t.ctx, "k", hint, {
      name: "",
      targetNode: "n",
      destinationCIDR: "10.244.1.0/24",
    });
    await expect(create).rejects.toThrow(`sandbox/routes.create ${hint}-10-244-1-0-24: sandbox/api.createRoute: 500`);
  });

  test.each([
    ["a cloud that drops them: no addresses, not compared", false, {}],
    [
      "a cloud that keeps them: listed with them, and compared by them",
      true,
      {
        enableNodeAddresses: true,
        targetNodeAddresses: [
          { type: "InternalIP", address: "10.0.0.1" },
          { type: "Hostname", address: "node-1" },
        ],
      },
    ],
  ])("target node addresses are sent on create; %s", async (_name, keep, expected) => {
    t.cloud.state.setSettings({ routeNodeAddresses: keep });
    const routes = createRoutes(t.api);
    const targetNodeAddresses = [
      { type: "InternalIP", address: "10.0.0.1" },
      { type: "Hostname", address: "node-1" },
    ];
    await routes.createRoute(t.ctx, "kubernetes", hint, {
      name: "",
      targetNode: "node-1",
      destinationCIDR: "10.244.1.0/24",
      targetNodeAddresses,
    });
    expect(await routes.listRoutes(t.ctx, "kubernetes")).toEqual([
      { name: `${hint}-10-244-1-0-24`, targetNode: "node-1", destinationCIDR: "10.244.1.0/24", ...expected },
    ]);
  });
});

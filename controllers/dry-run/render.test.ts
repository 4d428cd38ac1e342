import { describe, expect, test } from "bun:test";
import { type Plan, planExitCode } from "./model.ts";
import { groupByObject, renderPlanJson, renderPlanText } from "./render.ts";

const empty: Plan = {
  controllers: [
    { name: "cloud-node-controller", runs: true },
    { name: "node-route-controller", runs: false, reason: "will not configure cloud provider routes" },
  ],
  writes: [],
  notes: [],
  problems: [],
};

const changes: Plan = {
  ...empty,
  writes: [
    {
      object: { kind: "LoadBalancer", name: "lb-1" },
      controller: "service-lb-controller",
      action: "create",
      reason: "Service default/web wants a load balancer and none exists",
      changes: ["create with ports 80/TCP→30080 on nodes n1"],
    },
    {
      object: { kind: "Node", name: "n2" },
      controller: "cloud-node-controller",
      action: "initialize",
      reason: "node has the taint",
      changes: ["spec.providerID p://2"],
    },
    {
      object: { kind: "Service", name: "default/web" },
      controller: "service-lb-controller",
      action: "add-finalizer",
      reason: "wants a load balancer",
      changes: ["add finalizer service.kubernetes.io/load-balancer-cleanup"],
    },
    {
      object: { kind: "Node", name: "n1" },
      controller: "cloud-node-controller",
      action: "initialize",
      reason: "node has the taint",
      changes: ["spec.providerID p://1"],
    },
    {
      object: { kind: "Node", name: "n1" },
      controller: "cloud-node-controller",
      action: "event",
      reason: "node initialized",
      changes: ["Normal Synced: Node synced successfully"],
    },
  ],
};

describe("plan exit code", () => {
  const cases: { name: string; plan: Plan; code: 0 | 1 | 2 }[] = [
    { name: "nothing to change is 0", plan: empty, code: 0 },
    { name: "a write is 2", plan: changes, code: 2 },
    {
      name: "a Service the provider cannot preview is 2: something may change",
      plan: {
        ...empty,
        notes: [
          {
            object: { kind: "Service", name: "a/b" },
            controller: "service-lb-controller",
            message: "x",
            unknown: true,
          },
        ],
      },
      code: 2,
    },
    {
      name: "a plain note is 0",
      plan: {
        ...empty,
        notes: [{ object: { kind: "Node", name: "n" }, controller: "cloud-node-controller", message: "stays" }],
      },
      code: 0,
    },
    { name: "a problem is 1, even beside writes", plan: { ...changes, problems: [{ message: "down" }] }, code: 1 },
  ];
  for (const c of cases) test(c.name, () => expect(planExitCode(c.plan)).toBe(c.code));
});

describe("plan rendering", () => {
  test("groups writes by object: Nodes, Services, load balancers, routes, each by name", () => {
    expect(groupByObject(changes).map((g) => `${g.kind} ${g.name} ${g.writes.length}`)).toEqual([
      "Node n1 2",
      "Node n2 1",
      "Service default/web 1",
      "LoadBalancer lb-1 1",
    ]);
  });

  test("text: each object, each write with its controller and reason, each change, and a summary", () => {
    const text = renderPlanText(changes);
    expect(text).toContain("Controllers planned: cloud-node-controller\n");
    expect(text).toContain("  node-route-controller would not run: will not configure cloud provider routes\n");
    expect(text).toContain(
      "Node n1\n  ~ initialize (cloud-node-controller: node has the taint)\n      spec.providerID p://1\n  + event (cloud-node-controller: node initialized)\n      Normal Synced: Node synced successfully\n",
    );
    expect(text).toContain(
      "LoadBalancer lb-1\n  + create (service-lb-controller: Service default/web wants a load balancer and none exists)\n",
    );
    expect(text.indexOf("Node n2")).toBeLessThan(text.indexOf("Service default/web"));
    expect(text.trimEnd().split("\n").at(-1)).toBe(
      "Plan: 5 write(s) to 2 Nodes, 1 Service, 1 load balancer. Nothing was written.",
    );
  });

  test("text: nothing to change says so", () => {
    expect(renderPlanText(empty).trimEnd().split("\n").at(-1)).toBe(
      "No changes: the controllers would write nothing. Nothing was written.",
    );
  });

  test("text: notes and problems are listed apart, and the summary says the plan is incomplete", () => {
    const text = renderPlanText({
      ...empty,
      notes: [{ object: { kind: "Node", name: "n3" }, controller: "cloud-node-controller", message: "stays" }],
      problems: [{ controller: "node-route-controller", message: "error listing routes: down" }],
    });
    expect(text).toContain("Notes (nothing written for these):\n  Node n3 (cloud-node-controller): stays\n");
    expect(text).toContain(
      "Problems (the plan is incomplete):\n  (node-route-controller): error listing routes: down\n",
    );
    expect(text).toContain("1 problem(s): the plan is incomplete.");
  });

  test("json: the exit code, the count, the controllers, objects with their writes, notes and problems", () => {
    const doc = JSON.parse(renderPlanJson(changes));
    expect(doc.exitCode).toBe(2);
    expect(doc.changes).toBe(5);
    expect(doc.controllers).toEqual(changes.controllers);
    expect(doc.objects[0]).toEqual({
      kind: "Node",
      name: "n1",
      writes: [
        {
          controller: "cloud-node-controller",
          action: "initialize",
          reason: "node has the taint",
          changes: ["spec.providerID p://1"],
        },
        {
          controller: "cloud-node-controller",
          action: "event",
          reason: "node initialized",
          changes: ["Normal Synced: Node synced successfully"],
        },
      ],
    });
    expect(doc.notes).toEqual([]);
    expect(doc.problems).toEqual([]);
    expect(JSON.parse(renderPlanJson(empty))).toMatchObject({ exitCode: 0, changes: 0, objects: [] });
  });
});

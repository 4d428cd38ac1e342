import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type ApiServer, startApiServer } from "./server.ts";
import { client, type Json } from "./testing.ts";

setDefaultTimeout(60_000);

let server: ApiServer;
let api: ReturnType<typeof client>;
const NOW = Date.parse("2026-05-01T10:00:00Z");
const DEPLOYMENTS = "/apis/apps/v1/namespaces/default/deployments";

beforeAll(async () => {
  server = await startApiServer({ now: () => NOW, bookmarkIntervalMs: 0 });
  api = client(server.url);
});
afterAll(() => server.stop());

const deployment = (name: string, tweak: (d: Json) => void = () => {}): Json => {
  const d: Json = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: "c", image: "nginx" }] } },
    },
  };
  tweak(d);
  return d;
};

describe("deployments", () => {
  test("a created Deployment gets the real server's defaults", async () => {
    const r = await api.post(DEPLOYMENTS, deployment("defaults"));
    expect(r.status).toBe(201);
    expect(r.body.spec).toMatchObject({
      replicas: 1,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } },
    });
    expect(r.body.spec.template.metadata).toEqual({ labels: { app: "defaults" }, creationTimestamp: null });
    expect(r.body.spec.template.spec).toMatchObject({ restartPolicy: "Always", dnsPolicy: "ClusterFirst" });
    expect(r.body.spec.template.spec.containers[0]).toMatchObject({
      imagePullPolicy: "Always",
      terminationMessagePath: "/dev/termination-log",
    });
  });

  test.each([
    {
      name: "a selector that does not match the template's labels",
      tweak: (d: Json) => {
        d.spec.template.metadata.labels = { app: "other" };
      },
      field: "spec.template.metadata.labels",
      message: "`selector` does not match template `labels`",
    },
    {
      name: "no selector",
      tweak: (d: Json) => {
        delete d.spec.selector;
      },
      field: "spec.selector",
      message: "Required value",
    },
    {
      name: "no containers",
      tweak: (d: Json) => {
        d.spec.template.spec.containers = [];
      },
      field: "spec.template.spec.containers",
      message: "Required value",
    },
    {
      name: "a container without an image",
      tweak: (d: Json) => {
        delete d.spec.template.spec.containers[0].image;
      },
      field: "spec.template.spec.containers[0].image",
      message: "Required value",
    },
    {
      name: "negative replicas",
      tweak: (d: Json) => {
        d.spec.replicas = -1;
      },
      field: "spec.replicas",
      message: "must be greater than or equal to 0",
    },
  ])("is refused with 422 naming the field: $name", async ({ tweak, field, message }) => {
    const r = await api.post(DEPLOYMENTS, deployment("bad", tweak));
    expect(r.status).toBe(422);
    expect(r.body.details.causes).toContainEqual(expect.objectContaining({ field }));
    expect(r.body.message).toContain(message);
  });

  test("the selector cannot change", async () => {
    await api.post(DEPLOYMENTS, deployment("fixed-selector"));
    const r = await api.patch(
      `${DEPLOYMENTS}/fixed-selector`,
      { spec: { selector: { matchLabels: { app: "x" } }, template: { metadata: { labels: { app: "x" } } } } },
      "merge",
    );
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("spec.selector: Invalid value");
    expect(r.body.message).toContain("field is immutable");
  });

  test("kubectl get's table shows READY, UP-TO-DATE, AVAILABLE and, wide, the images and selector", async () => {
    await api.post(
      DEPLOYMENTS,
      deployment("table", (d) => (d.spec.replicas = 3)),
    );
    const r = await api.get(`${DEPLOYMENTS}/table`, { accept: "application/json;as=Table;v=v1;g=meta.k8s.io" });
    expect(r.body.columnDefinitions.map((c: Json) => c.name)).toEqual([
      "Name",
      "Ready",
      "Up-to-date",
      "Available",
      "Age",
      "Containers",
      "Images",
      "Selector",
    ]);
    expect(r.body.rows[0].cells).toEqual(["table", "0/3", 0, 0, "0s", "c", "nginx", "app=table"]);
  });
});

describe("the scale subresource", () => {
  const scale = `${DEPLOYMENTS}/scaled/scale`;

  beforeAll(async () => {
    await api.post(
      DEPLOYMENTS,
      deployment("scaled", (d) => (d.spec.replicas = 2)),
    );
  });

  test("GET answers an autoscaling/v1 Scale with the replicas and the selector string", async () => {
    const r = await api.get(scale);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      kind: "Scale",
      apiVersion: "autoscaling/v1",
      metadata: { name: "scaled", namespace: "default" },
      spec: { replicas: 2 },
      status: { replicas: 0, selector: "app=scaled" },
    });
  });

  test.each([
    { name: "a merge patch (what kubectl scale sends)", type: "merge" as const, body: { spec: { replicas: 5 } } },
    {
      name: "a JSON patch",
      type: "json" as const,
      body: [{ op: "replace", path: "/spec/replicas", value: 6 }],
    },
  ])("$name sets the Deployment's spec.replicas", async ({ type, body }) => {
    const r = await api.patch(scale, body, type);
    expect(r.status).toBe(200);
    const want = type === "merge" ? 5 : 6;
    expect(r.body.spec.replicas).toBe(want);
    expect((await api.get(`${DEPLOYMENTS}/scaled`)).body.spec.replicas).toBe(want);
  });

  test("PUT with the current resourceVersion scales; with a stale one it is 409", async () => {
    const current = (await api.get(scale)).body;
    const r = await api.put(scale, { ...current, spec: { replicas: 0 } });
    expect(r.status).toBe(200);
    expect(r.body.spec.replicas).toBe(0);
    const stale = await api.put(scale, { ...current, spec: { replicas: 1 } });
    expect(stale.status).toBe(409);
  });

  test("negative replicas are 422 naming spec.replicas", async () => {
    const r = await api.patch(scale, { spec: { replicas: -3 } }, "merge");
    expect(r.status).toBe(422);
    expect(r.body.message).toContain("spec.replicas: Invalid value: -3: must be greater than or equal to 0");
  });

  test("a resource without a scale subresource answers 404", async () => {
    expect((await api.get("/api/v1/namespaces/default/services/x/scale")).status).toBe(404);
  });
});

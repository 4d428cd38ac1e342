/**
 * Discovery (`/api`, `/apis`, group and resource lists), `/version` and the OpenAPI documents clients need.
 *
 * Aggregated discovery is not offered: kubectl asks for it, gets plain JSON and falls back to the per-group
 * documents. OpenAPI: `kubectl apply` (with its default `--validate=strict`) asks OpenAPI v3 whether each kind's
 * PATCH takes `fieldValidation`, and fails when it cannot find out; the v3 documents here declare exactly that and
 * no schemas. They list only merge and JSON patch bodies, so kubectl computes strategic patches from its
 * compiled-in types (it would otherwise try to read merge keys from schemas we do not serve). `/openapi/v2` is an
 * empty document (no paths, no definitions): kubectl 1.20's `edit` fails without one, and with it falls back to
 * its compiled-in types too. `kubectl explain` does not work.
 */
import { groupVersions, RESOURCES, type ResourceDef } from "./resources.ts";

export const KUBERNETES_VERSION = { major: "1", minor: "32", gitVersion: "v1.32.0" } as const;

export const versionInfo = (): object => ({
  ...KUBERNETES_VERSION,
  gitCommit: "0000000000000000000000000000000000000000",
  gitTreeState: "clean",
  buildDate: "2026-01-01T00:00:00Z",
  goVersion: "go1.23.0",
  compiler: "gc",
  platform: "linux/amd64",
  emulator: "ccm-ts sandbox apiserver",
});

export const apiVersions = (serverAddress: string): object => ({
  kind: "APIVersions",
  versions: ["v1"],
  serverAddressByClientCIDRs: [{ clientCIDR: "0.0.0.0/0", serverAddress }],
});

const groupEntry = (group: string) => {
  const versions = groupVersions()
    .filter((gv) => gv.group === group)
    .map((gv) => ({ groupVersion: `${group}/${gv.version}`, version: gv.version }));
  return { name: group, versions, preferredVersion: versions[0] };
};

const namedGroups = (): string[] => [...new Set(groupVersions().map((gv) => gv.group))].filter((g) => g !== "");

export const apiGroupList = (): object => ({
  kind: "APIGroupList",
  apiVersion: "v1",
  groups: namedGroups().map(groupEntry),
});

/** The APIGroup document for `group`, or undefined when no such group is served. */
export const apiGroup = (group: string): object | undefined =>
  namedGroups().includes(group) ? { kind: "APIGroup", apiVersion: "v1", ...groupEntry(group) } : undefined;

const resourceEntries = (d: ResourceDef): object[] => {
  const main: Record<string, unknown> = {
    name: d.plural,
    singularName: d.singular,
    namespaced: d.namespaced,
    kind: d.kind,
    verbs: d.verbs,
  };
  if (d.shortNames.length) main.shortNames = d.shortNames;
  if (d.categories.length) main.categories = d.categories;
  const out: object[] = [main];
  if (d.statusSubresource) {
    out.push({
      name: `${d.plural}/status`,
      singularName: "",
      namespaced: d.namespaced,
      kind: d.kind,
      verbs: ["get", "patch", "update"],
    });
  }
  if (d.scaleSubresource) {
    out.push({
      name: `${d.plural}/scale`,
      singularName: "",
      namespaced: d.namespaced,
      group: "autoscaling",
      version: "v1",
      kind: "Scale",
      verbs: ["get", "patch", "update"],
    });
  }
  return out;
};

/** The APIResourceList of `group/version`, or undefined when it is not served. */
export const apiResourceList = (group: string, version: string): object | undefined => {
  const gv = groupVersions().find((x) => x.group === group && x.version === version);
  if (!gv) return undefined;
  return {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: group ? `${group}/${version}` : version,
    resources: gv.resources.flatMap(resourceEntries),
  };
};

const gvPath = (group: string, version: string): string => (group ? `apis/${group}/${version}` : `api/${version}`);

/** `/openapi/v3`: where each group-version's document is. */
export const openApiV3Root = (): object => ({
  paths: Object.fromEntries(
    groupVersions().map(({ group, version }) => [
      gvPath(group, version),
      { serverRelativeURL: `/openapi/v3/${gvPath(group, version)}?hash=ccm-sandbox-1` },
    ]),
  ),
});

/** `/openapi/v3/<api|apis/...>`: PATCH operations naming their kind and the `fieldValidation` parameter. */
export const openApiV3Document = (path: string): object | undefined => {
  const gv = groupVersions().find(({ group, version }) => gvPath(group, version) === path);
  if (!gv) return undefined;
  const paths: Record<string, object> = {};
  for (const d of RESOURCES.filter((r) => r.group === gv.group && r.version === gv.version && !r.review)) {
    const item = d.namespaced ? `/${path}/namespaces/{namespace}/${d.plural}/{name}` : `/${path}/${d.plural}/{name}`;
    const patch = {
      operationId: `patch${d.kind}`,
      "x-kubernetes-action": "patch",
      "x-kubernetes-group-version-kind": { group: d.group, version: d.version, kind: d.kind },
      parameters: ["dryRun", "fieldManager", "fieldValidation", "force"].map((name) => ({
        name,
        in: "query",
        schema: { type: name === "force" ? "boolean" : "string", uniqueItems: true },
      })),
      requestBody: {
        content: {
          "application/json-patch+json": { schema: { type: "object" } },
          "application/merge-patch+json": { schema: { type: "object" } },
        },
        required: true,
      },
      responses: { "200": { description: "OK" } },
    };
    paths[item] = { patch };
  }
  return {
    openapi: "3.0.0",
    info: { title: "Kubernetes (ccm-ts sandbox)", version: KUBERNETES_VERSION.gitVersion },
    paths,
    components: { schemas: {} },
  };
};

/** `/openapi/v2` as JSON: a Swagger 2.0 document with no paths and no definitions. */
export const openApiV2Document = (): object => ({
  swagger: "2.0",
  info: { title: "Kubernetes (ccm-ts sandbox)", version: KUBERNETES_VERSION.gitVersion },
  paths: {},
});

/** The media type client-go asks `/openapi/v2` for: gnostic's openapi.v2.Document in protobuf. */
export const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/**
 * The same document as gnostic's `openapi.v2.Document` protobuf (swagger = 1, info = 2 {title = 1, version = 2},
 * paths = 8), which kubectl 1.20 reads.
 */
export const openApiV2Protobuf = (): Uint8Array => {
  // Every length here is below 128, so it is one varint byte.
  const field = (n: number, bytes: Uint8Array): number[] => [(n << 3) | 2, bytes.length, ...bytes];
  const text = (s: string): Uint8Array => new TextEncoder().encode(s);
  const info = new Uint8Array([
    ...field(1, text("Kubernetes (ccm-ts sandbox)")),
    ...field(2, text(KUBERNETES_VERSION.gitVersion)),
  ]);
  return new Uint8Array([...field(1, text("2.0")), ...field(2, info), ...field(8, new Uint8Array())]);
};

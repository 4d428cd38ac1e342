/**
 * The `meta.k8s.io/v1` Table answer (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) that `kubectl get`
 * prints: the columns kubectl shows against a real server (NAME STATUS ROLES AGE VERSION for nodes, …),
 * computed server-side as the real server does, ages included.
 */
import { toStorageForm } from "./events-view.ts";
import { getPath, isObject, type JsonObject, type Obj, str, stringMap } from "./json.ts";
import type { ResourceDef } from "./resources.ts";
import { selectorString } from "./scale.ts";

export type IncludeObject = "None" | "Metadata" | "Object";

interface Column {
  readonly name: string;
  readonly priority?: number;
  readonly format?: string;
  /** `integer` for numeric cells. */
  readonly type?: string;
  readonly cell: (obj: Obj, age: (ts: unknown) => string) => string | number;
}

/** Human age like `5m`, `3h20m`, `12d`, with the real printers' thresholds (seconds below two minutes, …). */
export const humanAge = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  const h = Math.floor(m / 60);
  const d = Math.floor(h / 24);
  const y = Math.floor(d / 365);
  const pair = (a: number, ua: string, b: number, ub: string): string => (b === 0 ? `${a}${ua}` : `${a}${ua}${b}${ub}`);
  if (m < 10) return pair(m, "m", s % 60, "s");
  if (m < 180) return `${m}m`;
  if (h < 8) return pair(h, "h", m % 60, "m");
  if (h < 48) return `${h}h`;
  if (h < 24 * 8) return pair(d, "d", h % 24, "h");
  if (d < 365 * 2) return `${d}d`;
  if (d < 365 * 8) return pair(y, "y", d % 365, "d");
  return `${y}y`;
};

const NONE = "<none>";
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.filter(isObject) : []);
const text = (obj: Obj, path: string, fallback = NONE): string => {
  const v = getPath(obj, path);
  return v === undefined || v === null || v === "" ? fallback : String(v);
};
const num = (obj: Obj, path: string): number => {
  const v = getPath(obj, path);
  return typeof v === "number" ? v : 0;
};
const name: Column = { name: "Name", format: "name", cell: (o) => str(o.metadata?.name) ?? "" };
const ageCol: Column = { name: "Age", cell: (o, age) => age(o.metadata?.creationTimestamp) };

const nodeStatus = (o: Obj): string => {
  const ready = list(getPath(o, "status.conditions")).find((c) => c.type === "Ready");
  const parts = [ready ? (ready.status === "True" ? "Ready" : "NotReady") : "Unknown"];
  if (getPath(o, "spec.unschedulable") === true) parts.push("SchedulingDisabled");
  return parts.join(",");
};

const nodeRoles = (o: Obj): string => {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(stringMap(o.metadata?.labels))) {
    if (k.startsWith("node-role.kubernetes.io/")) roles.add(k.slice("node-role.kubernetes.io/".length));
    else if (k === "kubernetes.io/role") roles.add(v);
  }
  return roles.size ? [...roles].sort().join(",") : NONE;
};

const nodeAddress = (type: string) => (o: Obj) =>
  str(list(getPath(o, "status.addresses")).find((a) => a.type === type)?.address) ?? NONE;

const serviceExternal = (o: Obj): string => {
  const type = getPath(o, "spec.type");
  const external = Array.isArray(getPath(o, "spec.externalIPs")) ? (getPath(o, "spec.externalIPs") as string[]) : [];
  if (type === "ExternalName") return text(o, "spec.externalName");
  if (type === "LoadBalancer") {
    const ingress = list(getPath(o, "status.loadBalancer.ingress")).map((i) => str(i.ip) ?? str(i.hostname) ?? "");
    const all = [...ingress, ...external].filter(Boolean);
    return all.length ? all.join(",") : "<pending>";
  }
  return external.length ? external.join(",") : NONE;
};

const servicePorts = (o: Obj): string => {
  const ports = list(getPath(o, "spec.ports")).map(
    (p) => `${String(p.port)}${p.nodePort ? `:${String(p.nodePort)}` : ""}/${str(p.protocol) ?? "TCP"}`,
  );
  return ports.length ? ports.join(",") : NONE;
};

const selector = (o: Obj): string => {
  const s = Object.entries(stringMap(getPath(o, "spec.selector"))).map(([k, v]) => `${k}=${v}`);
  return s.length ? s.sort().join(",") : NONE;
};

const countKeys = (...maps: unknown[]): number =>
  maps.reduce<number>((n, m) => n + (isObject(m) ? Object.keys(m).length : 0), 0);

const eventObject = (o: Obj): string =>
  `${text(o, "involvedObject.kind", "").toLowerCase()}/${text(o, "involvedObject.name", "")}`;

const eventColumns: Column[] = [
  {
    name: "Last Seen",
    cell: (o, age) =>
      age(o.lastTimestamp ?? o.eventTime ?? getPath(o, "series.lastObservedTime") ?? o.metadata?.creationTimestamp),
  },
  { name: "Type", cell: (o) => text(o, "type", "") },
  { name: "Reason", cell: (o) => text(o, "reason", "") },
  { name: "Object", cell: eventObject },
  { name: "Subobject", priority: 1, cell: (o) => text(o, "involvedObject.fieldPath", "") },
  { name: "Source", priority: 1, cell: (o) => text(o, "source.component", text(o, "reportingComponent", "")) },
  { name: "Message", cell: (o) => text(o, "message", "") },
  { name: "First Seen", priority: 1, cell: (o, age) => age(o.firstTimestamp ?? o.eventTime) },
  { name: "Count", priority: 1, type: "integer", cell: (o) => (typeof o.count === "number" ? o.count : 1) },
  { name: "Name", priority: 1, format: "name", cell: name.cell },
];

/** Keyed by storage id: events.k8s.io events print from their core form, like the real printers. */
const columns: Record<string, Column[]> = {
  "core/nodes": [
    name,
    { name: "Status", cell: nodeStatus },
    { name: "Roles", cell: nodeRoles },
    ageCol,
    { name: "Version", cell: (o) => text(o, "status.nodeInfo.kubeletVersion", "") },
    { name: "Internal-IP", priority: 1, cell: nodeAddress("InternalIP") },
    { name: "External-IP", priority: 1, cell: nodeAddress("ExternalIP") },
    { name: "OS-Image", priority: 1, cell: (o) => text(o, "status.nodeInfo.osImage", "<unknown>") },
    { name: "Kernel-Version", priority: 1, cell: (o) => text(o, "status.nodeInfo.kernelVersion", "<unknown>") },
    {
      name: "Container-Runtime",
      priority: 1,
      cell: (o) => text(o, "status.nodeInfo.containerRuntimeVersion", "<unknown>"),
    },
  ],
  "core/services": [
    name,
    { name: "Type", cell: (o) => text(o, "spec.type", "") },
    { name: "Cluster-IP", cell: (o) => text(o, "spec.clusterIP") },
    { name: "External-IP", cell: serviceExternal },
    { name: "Port(s)", cell: servicePorts },
    ageCol,
    { name: "Selector", priority: 1, cell: selector },
  ],
  "core/events": eventColumns,
  "core/configmaps": [name, { name: "Data", type: "integer", cell: (o) => countKeys(o.data, o.binaryData) }, ageCol],
  "core/secrets": [
    name,
    { name: "Type", cell: (o) => text(o, "type", "") },
    { name: "Data", type: "integer", cell: (o) => countKeys(o.data) },
    ageCol,
  ],
  "core/namespaces": [name, { name: "Status", cell: (o) => text(o, "status.phase", "") }, ageCol],
  "coordination.k8s.io/leases": [name, { name: "Holder", cell: (o) => text(o, "spec.holderIdentity", "") }, ageCol],
  "core/pods": [
    name,
    {
      name: "Ready",
      cell: (o) =>
        `${list(getPath(o, "status.containerStatuses")).filter((c) => c.ready === true).length}/${list(getPath(o, "spec.containers")).length}`,
    },
    { name: "Status", cell: (o) => text(o, "status.phase", "") },
    {
      name: "Restarts",
      type: "integer",
      cell: (o) =>
        list(getPath(o, "status.containerStatuses")).reduce(
          (n, c) => n + (typeof c.restartCount === "number" ? c.restartCount : 0),
          0,
        ),
    },
    ageCol,
    { name: "IP", priority: 1, cell: (o) => text(o, "status.podIP") },
    { name: "Node", priority: 1, cell: (o) => text(o, "spec.nodeName") },
  ],
  "apps/deployments": [
    name,
    {
      name: "Ready",
      cell: (o) => `${num(o, "status.readyReplicas")}/${num(o, "spec.replicas")}`,
    },
    { name: "Up-to-date", type: "integer", cell: (o) => num(o, "status.updatedReplicas") },
    { name: "Available", type: "integer", cell: (o) => num(o, "status.availableReplicas") },
    ageCol,
    {
      name: "Containers",
      priority: 1,
      cell: (o) =>
        list(getPath(o, "spec.template.spec.containers"))
          .map((c) => str(c.name) ?? "")
          .join(","),
    },
    {
      name: "Images",
      priority: 1,
      cell: (o) =>
        list(getPath(o, "spec.template.spec.containers"))
          .map((c) => str(c.image) ?? "")
          .join(","),
    },
    { name: "Selector", priority: 1, cell: (o) => selectorString(getPath(o, "spec.selector")) || NONE },
  ],
};

const fallback: Column[] = [name, ageCol];

export interface TableOptions {
  readonly now: number;
  readonly includeObject: IncludeObject;
  /** Watch events after the first leave the column definitions out, as the real server does. */
  readonly headers: boolean;
  readonly resourceVersion?: string;
  readonly continue?: string;
}

const rowObject = (obj: Obj, include: IncludeObject): Obj | undefined => {
  if (include === "None") return undefined;
  if (include === "Object") return obj;
  return { kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", metadata: obj.metadata ?? {} };
};

export const toTable = (def: ResourceDef, items: readonly Obj[], opts: TableOptions): Obj => {
  const cols = columns[def.storage] ?? fallback;
  const age = (ts: unknown): string => {
    const t = typeof ts === "string" ? Date.parse(ts) : Number.NaN;
    return Number.isNaN(t) ? "<unknown>" : humanAge(opts.now - t);
  };
  const metadata: JsonObject = {};
  if (opts.resourceVersion !== undefined) metadata.resourceVersion = opts.resourceVersion;
  if (opts.continue !== undefined) metadata.continue = opts.continue;
  const table: Obj = { kind: "Table", apiVersion: "meta.k8s.io/v1", metadata };
  if (opts.headers) {
    table.columnDefinitions = cols.map((c) => ({
      name: c.name,
      type: c.type ?? "string",
      format: c.format ?? "",
      description: "",
      priority: c.priority ?? 0,
    }));
  }
  table.rows = items.map((view) => {
    const stored = toStorageForm(def, view);
    const object = rowObject(view, opts.includeObject);
    return object
      ? { cells: cols.map((c) => c.cell(stored, age)), object }
      : { cells: cols.map((c) => c.cell(stored, age)) };
  });
  return table;
};

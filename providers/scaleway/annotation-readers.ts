/**
 * The value forms scw CCM's `scw-loadbalancer-*` annotations use (scaleway/loadbalancers_annotations.go), as readers
 * that tell a bad value from an unset one:
 *
 * - a **port selector** (`isPortInRange`): `true`, `false`, `*`, or Service ports `80,443`;
 * - a **per-port value** (`getValueForPort`): `value`, or `80:value;443,8443:other` with an optional bare fallback;
 * - **certificate IDs** (`getCertificateIDs`): `id,id` for every port or `443:id;8443:id,id`, IDs maybe `zone/id`;
 * - the **load balancer ID** `zone/id`, **node labels** `k=v,k2=v2`, IDs, zones.
 *
 * Stricter than scw CCM where it would pass garbage to the API: a port outside 1–65535, a per-port part with two
 * colons, an ID that is no UUID are refused here, naming the annotation.
 */
import { type Parsed, type Reader, splitList } from "../kit/annotations/readers.ts";

const valid = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = <T>(reason?: string): Parsed<T> => (reason === undefined ? { ok: false } : { ok: false, reason });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A Scaleway zone: `fr-par-1`, `nl-ams-2`, `pl-waw-3`. */
export const ZONE = /^[a-z]{2}-[a-z]{3}-[1-9]$/;

/** Which Service ports a selector picks: all, none, or these port numbers. */
export type PortSelection = { readonly all: true } | { readonly all: false; readonly ports: readonly number[] };

export const noPorts: PortSelection = { all: false, ports: [] };

/** Whether `selection` picks the Service port `port`. */
export function selects(selection: PortSelection, port: number): boolean {
  return selection.all || selection.ports.includes(port);
}

// Go's strconv.ParseBool minus 1 and 0, which isPortInRange reads as ports.
const TRUE = new Set(["t", "T", "TRUE", "true", "True"]);
const FALSE = new Set(["f", "F", "FALSE", "false", "False"]);

function parseSelection(t: string): Parsed<PortSelection> {
  if (t === "*" || TRUE.has(t)) return valid({ all: true });
  if (t === "" || FALSE.has(t)) return valid(noPorts);
  const ports: number[] = [];
  const bad: string[] = [];
  for (const part of t.replaceAll(" ", "").split(",")) {
    const n = /^\d+$/.test(part) ? Number(part) : Number.NaN;
    if (n >= 1 && n <= 65535) ports.push(n);
    else bad.push(JSON.stringify(part));
  }
  return bad.length > 0 ? invalid(`not a port from 1 to 65535: ${bad.join(", ")}`) : valid({ all: false, ports });
}

/** `true`, `false`, `*`, or a comma-separated list of Service ports. */
export function portSelector(): Reader<PortSelection> {
  return {
    type: "port selector",
    accepts: "true, false, * (every port) or a comma-separated list of Service ports such as 80,443",
    parse: (t) => parseSelection(t),
    format: (s) => (s.all ? "*" : s.ports.length === 0 ? "false" : s.ports.join(",")),
  };
}

/** A value for every port, or for some: the bare part is the fallback, `ports:value` parts win for their ports. */
export interface PerPort<T> {
  readonly fallback?: T;
  readonly parts: readonly { readonly ports: PortSelection; readonly value: T }[];
}

/** The value for Service port `port`: the last part naming it, else the fallback. */
export function valueForPort<T>(v: PerPort<T>, port: number): T | undefined {
  let found = v.fallback;
  for (const part of v.parts) if (selects(part.ports, port)) found = part.value;
  return found;
}

/** `value`, or `80:value;443,8443:other` (scw CCM's `getValueForPort`), each value read by `item`. */
export function perPortValue<T>(item: Reader<T>): Reader<PerPort<T>> {
  return {
    type: `per-port ${item.type}`,
    accepts: `a value, or port:value parts separated by ';' such as 80:x;443,8443:y, each value ${item.accepts}`,
    parse(t, service) {
      let fallback: T | undefined;
      const parts: { ports: PortSelection; value: T }[] = [];
      const bad: string[] = [];
      for (const segment of t.split(";")) {
        const pieces = segment.split(":");
        if (pieces.length > 2) {
          bad.push(`${JSON.stringify(segment)} has more than one ':'`);
          continue;
        }
        const raw = (pieces.length === 1 ? pieces[0] : pieces[1]) ?? "";
        const read = item.parse(raw.trim(), service);
        if (!read.ok) {
          bad.push(`${JSON.stringify(raw)} is not ${item.accepts}${read.reason ? ` (${read.reason})` : ""}`);
          continue;
        }
        if (pieces.length === 1) {
          fallback ??= read.value;
          continue;
        }
        const ports = parseSelection((pieces[0] ?? "").trim());
        if (!ports.ok) bad.push(`${JSON.stringify(segment)}: ${ports.reason ?? "bad ports"}`);
        else parts.push({ ports: ports.value, value: read.value });
      }
      if (bad.length > 0) return invalid(bad.join("; "));
      return valid(fallback === undefined ? { parts } : { fallback, parts });
    },
    format: (v) =>
      [
        ...(v.fallback === undefined ? [] : [item.format(v.fallback)]),
        ...v.parts.map((p) => `${portSelector().format(p.ports)}:${item.format(p.value)}`),
      ].join(";"),
  };
}

/** A UUID, as Scaleway's resource IDs are. */
export function uuid(what: string): Reader<string> {
  return {
    type: "ID",
    accepts: `${what} (a UUID)`,
    parse: (t) => (UUID.test(t) ? valid(t.toLowerCase()) : invalid()),
    format: (v) => v,
  };
}

/** Certificate IDs for every port (`id,id`) and for some (`443:id;8443,9443:id,id`); `zone/id` reads as `id`. */
export interface CertificateChoice {
  readonly all: readonly string[];
  readonly parts: readonly { readonly ports: PortSelection; readonly ids: readonly string[] }[];
}

/** The certificates of Service port `port`: those for every port and those whose part names it (scw CCM adds them). */
export function certificatesForPort(c: CertificateChoice, port: number): string[] {
  const ids = [...c.all];
  for (const part of c.parts) if (selects(part.ports, port)) ids.push(...part.ids);
  return [...new Set(ids)];
}

function certificateID(t: string): string | undefined {
  const pieces = t.split("/");
  const id = pieces.length === 2 && ZONE.test(pieces[0] ?? "") ? pieces[1] : pieces.length === 1 ? pieces[0] : "";
  return id !== undefined && UUID.test(id) ? id.toLowerCase() : undefined;
}

export function certificateIDs(): Reader<CertificateChoice> {
  return {
    type: "certificate IDs",
    accepts: "certificate IDs (id or zone/id), comma-separated, optionally per port as 443:id;8443,9443:id,id",
    parse(t) {
      const all: string[] = [];
      const parts: { ports: PortSelection; ids: string[] }[] = [];
      const bad: string[] = [];
      const idsOf = (text: string): string[] =>
        splitList(text).flatMap((raw) => {
          const id = certificateID(raw);
          if (id === undefined) bad.push(`${JSON.stringify(raw)} is not a certificate ID`);
          return id === undefined ? [] : [id];
        });
      for (const segment of t.split(";")) {
        const pieces = segment.split(":");
        if (pieces.length === 1) all.push(...idsOf(segment));
        else if (pieces.length > 2) bad.push(`${JSON.stringify(segment)} has more than one ':'`);
        else {
          const ports = parseSelection((pieces[0] ?? "").trim());
          if (!ports.ok) bad.push(`${JSON.stringify(segment)}: ${ports.reason ?? "bad ports"}`);
          else parts.push({ ports: ports.value, ids: idsOf(pieces[1] ?? "") });
        }
      }
      return bad.length > 0 ? invalid(bad.join("; ")) : valid({ all, parts });
    },
    format: (c) =>
      [
        ...(c.all.length > 0 ? [c.all.join(",")] : []),
        ...c.parts.map((p) => `${portSelector().format(p.ports)}:${p.ids.join(",")}`),
      ].join(";"),
  };
}

/** The `zone/id` scw CCM writes on a Service it made or adopted a load balancer for. */
export interface LoadBalancerRef {
  readonly zone: string;
  readonly id: string;
}

export function loadBalancerRef(): Reader<LoadBalancerRef> {
  return {
    type: "zone/ID",
    accepts: "zone/load-balancer-ID such as fr-par-1/11111111-2222-3333-4444-555555555555",
    parse(t) {
      const [zone = "", id = "", ...rest] = t.toLowerCase().split("/");
      return rest.length === 0 && ZONE.test(zone) && UUID.test(id) ? valid({ zone, id }) : invalid();
    },
    format: (r) => `${r.zone}/${r.id}`,
  };
}

/** A Scaleway zone such as fr-par-1, lower-cased as scw CCM does. */
export function zone(): Reader<string> {
  return {
    type: "zone",
    accepts: "a Scaleway zone such as fr-par-1",
    parse: (t) => (ZONE.test(t.toLowerCase()) ? valid(t.toLowerCase()) : invalid()),
    format: (v) => v,
  };
}

/** `key=value,key2=value2` (a bare `key` or `key=` matches the empty value), as scw CCM's target-node-labels. */
export function nodeLabels(): Reader<Record<string, string>> {
  const LABEL = /^([A-Za-z0-9][-A-Za-z0-9_.]*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
  return {
    type: "labels",
    accepts: "comma-separated key=value node labels",
    parse(t) {
      const labels: Record<string, string> = {};
      const bad: string[] = [];
      for (const pair of splitList(t)) {
        const [key = "", value = ""] = pair.split("=").map((s) => s.trim());
        if (!LABEL.test(key)) bad.push(`${JSON.stringify(key)} is not a label key`);
        else labels[key] = value;
      }
      return bad.length > 0 ? invalid(bad.join("; ")) : valid(labels);
    },
    format: (l) =>
      Object.entries(l)
        .map(([k, v]) => `${k}=${v}`)
        .join(","),
  };
}

/** `ipv4` or `ipv4,ipv6` (case-insensitive): an IPv4 is always booked. */
export function flexibleIPTypes(): Reader<{ readonly ipv4: true; readonly ipv6: boolean }> {
  return {
    type: "IP families",
    accepts: "ipv4 or ipv4,ipv6",
    parse(t) {
      const items = splitList(t.toLowerCase());
      const unknown = items.filter((i) => i !== "ipv4" && i !== "ipv6");
      if (unknown.length > 0) return invalid(`unsupported ${unknown.map((u) => JSON.stringify(u)).join(", ")}`);
      if (!items.includes("ipv4")) return invalid("an IPv4 is always required");
      return valid({ ipv4: true, ipv6: items.includes("ipv6") });
    },
    format: (f) => (f.ipv6 ? "ipv4,ipv6" : "ipv4"),
  };
}

/** A health-check HTTP URI: a path, optionally after a host (`example.com/healthz`), as scw CCM splits it. */
export function healthCheckURI(): Reader<{ readonly host: string; readonly path: string }> {
  return {
    type: "URI",
    accepts: "a path such as /healthz, optionally after a host: example.com/healthz",
    parse(t) {
      if (t === "" || /\s/.test(t) || t.includes("://")) return invalid();
      const slash = t.indexOf("/");
      const host = slash < 0 ? t : t.slice(0, slash);
      const path = slash < 0 ? "/" : t.slice(slash);
      if (host !== "" && !/^[A-Za-z0-9.-]+(:\d+)?$/.test(host)) return invalid(`${JSON.stringify(host)} is no host`);
      return valid({ host, path });
    },
    format: (u) => `${u.host}${u.path}`,
  };
}

/** Non-empty text without spaces (a cookie name, a database user, a host). */
export function token(what: string, pattern = /^\S+$/): Reader<string> {
  return {
    type: "string",
    accepts: what,
    parse: (t) => (pattern.test(t) ? valid(t) : invalid()),
    format: (v) => v,
  };
}

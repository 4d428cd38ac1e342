/**
 * Per-port annotation forms, keyed by a Service port's number or name: `80=http,443=https`, `https=true`, and port
 * lists such as `443,8443`. Keys are checked against the Service's own ports (a key naming no port of the Service
 * is a mistake worth reporting, not a setting to ignore) and come back as port numbers.
 */
import type { Service } from "../../../kube/objects.ts";
import { type Parsed, type Reader, splitList } from "./readers.ts";

/** The Service port a key names: by number (`443`) or by name (`https`); undefined when none does. */
function resolvePort(key: string, service: Service): number | undefined {
  const ports = service.spec?.ports ?? [];
  if (/^\d+$/.test(key)) return ports.find((p) => p.port === Number(key))?.port;
  return ports.find((p) => p.name === key)?.port;
}

/** The Service's ports as a reader of this form would name them: `80`, `443 (https)`. */
function describePorts(service: Service): string {
  const ports = (service.spec?.ports ?? []).map((p) => (p.name ? `${p.port} (${p.name})` : String(p.port)));
  return ports.length > 0 ? ports.join(", ") : "none";
}

/** Each key resolved to its port number; every unknown or repeated key is named in `bad`. */
function resolveKeys(keys: readonly string[], service: Service): { ports: number[]; bad: string[] } {
  const ports: number[] = [];
  const bad: string[] = [];
  for (const key of keys) {
    const port = resolvePort(key, service);
    if (port === undefined) bad.push(`${JSON.stringify(key)} is not a port of the Service`);
    else if (ports.includes(port)) bad.push(`port ${port} is given twice`);
    else ports.push(port);
  }
  return { ports, bad };
}

const failure = <T>(bad: readonly string[], service: Service): Parsed<T> => ({
  ok: false,
  reason: bad.some((b) => b.includes("not a port"))
    ? `${bad.join("; ")}; its ports are ${describePorts(service)}`
    : bad.join("; "),
});

/** `port=value` pairs, comma-separated, each value read by `value`: a map from Service port number to value. */
export function perPort<T>(value: Reader<T>): Reader<Map<number, T>> {
  return {
    type: `per-port ${value.type}`,
    accepts: `comma-separated port=value pairs (port by number or name), each value ${value.accepts}`,
    parse(t, service) {
      const keys: string[] = [];
      const values: T[] = [];
      const bad: string[] = [];
      for (const pair of splitList(t)) {
        const eq = pair.indexOf("=");
        if (eq < 0) {
          bad.push(`${JSON.stringify(pair)} is not port=value`);
          continue;
        }
        const key = pair.slice(0, eq).trim();
        const read = value.parse(pair.slice(eq + 1).trim(), service);
        if (!read.ok) {
          bad.push(
            `${JSON.stringify(pair)}: the value is not ${value.accepts}${read.reason ? ` (${read.reason})` : ""}`,
          );
          continue;
        }
        keys.push(key);
        values.push(read.value);
      }
      const resolved = resolveKeys(keys, service);
      bad.push(...resolved.bad);
      if (bad.length > 0) return failure(bad, service);
      return { ok: true, value: new Map(resolved.ports.map((port, i) => [port, values[i] as T])) };
    },
    format: (map) => [...map].map(([port, v]) => `${port}=${value.format(v)}`).join(","),
  };
}

/** Comma-separated Service ports, by number or name: their numbers, in the order given. */
export function portList(): Reader<number[]> {
  return {
    type: "port list",
    accepts: "a comma-separated list of the Service's ports, by number or name",
    parse(t, service) {
      const resolved = resolveKeys(splitList(t), service);
      if (resolved.bad.length > 0) return failure(resolved.bad, service);
      return { ok: true, value: resolved.ports };
    },
    format: (ports) => ports.join(","),
  };
}

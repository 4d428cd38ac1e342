/**
 * Cluster IPs (10.96.0.0/12) and node ports (30000-32767) for services, handed out in order and kept across
 * updates the way the real server keeps them: an update that leaves `clusterIP` or a port's `nodePort` empty
 * keeps the old value (ports are matched by port and protocol). The cursors make allocation O(1) amortised.
 */
import { needsNodePorts } from "./defaults.ts";
import { type FieldError, invalid } from "./field-errors.ts";
import { isObject, type JsonObject, type Obj, str } from "./json.ts";

const CIDR = "10.96.0.0/12";
const IP_FIRST = ((10 << 24) | (96 << 16)) >>> 0;
const IP_LAST = IP_FIRST + 2 ** 20 - 2;
const PORT_FIRST = 30000;
const PORT_LAST = 32767;

const ipToInt = (ip: string): number | undefined => {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return parts.reduce((acc, p) => acc * 256 + p, 0);
};

const intToIp = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".");

const portsOf = (svc: Obj | undefined): JsonObject[] =>
  svc && isObject(svc.spec) && Array.isArray(svc.spec.ports) ? svc.spec.ports.filter(isObject) : [];

const specOf = (svc: Obj | undefined): JsonObject => (svc && isObject(svc.spec) ? svc.spec : {});

/** Every cluster IP and node port a service holds. */
const holdings = (svc: Obj | undefined): { ips: number[]; ports: number[] } => {
  const spec = specOf(svc);
  const ip = typeof spec.clusterIP === "string" ? ipToInt(spec.clusterIP) : undefined;
  const ports = portsOf(svc)
    .map((p) => p.nodePort)
    .filter((p): p is number => typeof p === "number" && p > 0);
  if (typeof spec.healthCheckNodePort === "number") ports.push(spec.healthCheckNodePort);
  return { ips: ip === undefined ? [] : [ip], ports };
};

export class ServiceAllocator {
  readonly #ips = new Set<number>();
  readonly #ports = new Set<number>();
  // 10.96.0.1 is the `kubernetes` service's address in a real cluster; start after the low ones.
  #ipCursor = IP_FIRST + 10;
  #portCursor = PORT_FIRST;

  /**
   * Fills in `next`'s cluster IP and node ports (keeping `old`'s) and claims them. With findings nothing is claimed.
   * Call only once every other check has passed: claims are undone by `release`/`releaseDropped`, nothing else.
   */
  assign(next: Obj, old: Obj | undefined): FieldError[] {
    const errs: FieldError[] = [];
    const claimed: { set: Set<number>; v: number }[] = [];
    const had = holdings(old);
    const claim = (set: Set<number>, v: number, mine: number[]): boolean => {
      if (mine.includes(v)) return true;
      if (set.has(v)) return false;
      set.add(v);
      claimed.push({ set, v });
      return true;
    };
    const spec = specOf(next);
    const oldSpec = specOf(old);
    const type = spec.type;
    if (type === "ExternalName") {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    } else if (spec.clusterIP === "None") {
      spec.clusterIPs = ["None"];
    } else {
      const wanted = str(spec.clusterIP) || str(oldSpec.clusterIP);
      if (wanted) {
        const n = ipToInt(wanted);
        if (n === undefined) errs.push(invalid("spec.clusterIPs", [wanted], "must be a valid IP address"));
        else if (n < IP_FIRST || n > IP_LAST) {
          errs.push(
            invalid(
              "spec.clusterIPs",
              [wanted],
              `failed to allocate IP ${wanted}: provided IP is not in the valid range. The range of valid IPs is ${CIDR}`,
            ),
          );
        } else if (!claim(this.#ips, n, had.ips)) {
          errs.push(
            invalid("spec.clusterIPs", [wanted], `failed to allocate IP ${wanted}: provided IP is already allocated`),
          );
        }
        spec.clusterIP = wanted;
      } else {
        const n = this.#next(this.#ips, "ip");
        claim(this.#ips, n, []);
        spec.clusterIP = intToIp(n);
      }
      spec.clusterIPs = [spec.clusterIP];
    }
    if (needsNodePorts(type)) {
      const allocate = type === "NodePort" || spec.allocateLoadBalancerNodePorts !== false;
      for (const [i, p] of portsOf(next).entries()) {
        const same = portsOf(old).find((o) => o.port === p.port && (o.protocol ?? "TCP") === (p.protocol ?? "TCP"));
        const wanted = typeof p.nodePort === "number" && p.nodePort > 0 ? p.nodePort : same?.nodePort;
        if (typeof wanted === "number" && wanted > 0) {
          if (wanted < PORT_FIRST || wanted > PORT_LAST) {
            errs.push(
              invalid(
                `spec.ports[${i}].nodePort`,
                wanted,
                `provided port is not in the valid range. The range of valid ports is ${PORT_FIRST}-${PORT_LAST}`,
              ),
            );
          } else if (!claim(this.#ports, wanted, had.ports)) {
            errs.push(invalid(`spec.ports[${i}].nodePort`, wanted, "provided port is already allocated"));
          }
          p.nodePort = wanted;
        } else if (allocate) {
          const port = this.#next(this.#ports, "port");
          claim(this.#ports, port, []);
          p.nodePort = port;
        }
      }
      if (type === "LoadBalancer" && spec.externalTrafficPolicy === "Local") {
        const hc =
          typeof spec.healthCheckNodePort === "number" ? spec.healthCheckNodePort : oldSpec.healthCheckNodePort;
        if (typeof hc === "number") {
          spec.healthCheckNodePort = hc;
          if (!claim(this.#ports, hc, had.ports))
            errs.push(invalid("spec.healthCheckNodePort", hc, "provided port is already allocated"));
        } else {
          const port = this.#next(this.#ports, "port");
          claim(this.#ports, port, []);
          spec.healthCheckNodePort = port;
        }
      }
    }
    if (errs.length) for (const c of claimed) c.set.delete(c.v);
    return errs;
  }

  /** After an update is stored: frees what `old` held and `next` no longer does. */
  releaseDropped(old: Obj, next: Obj): void {
    const now = holdings(next);
    const before = holdings(old);
    for (const ip of before.ips) if (!now.ips.includes(ip)) this.#ips.delete(ip);
    for (const p of before.ports) if (!now.ports.includes(p)) this.#ports.delete(p);
  }

  release(svc: Obj): void {
    const { ips, ports } = holdings(svc);
    for (const ip of ips) this.#ips.delete(ip);
    for (const p of ports) this.#ports.delete(p);
  }

  #next(set: Set<number>, what: "ip" | "port"): number {
    const [first, last] = what === "ip" ? [IP_FIRST + 1, IP_LAST] : [PORT_FIRST, PORT_LAST];
    const size = last - first + 1;
    let cursor = what === "ip" ? this.#ipCursor : this.#portCursor;
    for (let tries = 0; tries < size; tries++) {
      const v = cursor;
      cursor = cursor >= last ? first : cursor + 1;
      if (!set.has(v)) {
        if (what === "ip") this.#ipCursor = cursor;
        else this.#portCursor = cursor;
        return v;
      }
    }
    throw new Error(`sandbox apiserver: no free service ${what === "ip" ? "IP" : "node port"} left`);
  }
}

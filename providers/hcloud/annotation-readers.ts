/**
 * Readers for the hcloud annotations the kit's general ones do not cover: hccm's case-insensitive words, durations
 * that the Hetzner Cloud API takes in whole seconds, IPv4-only addresses and ranges (private networks are IPv4),
 * DNS names, certificate references and label selectors. Each accepts what hccm accepts where hccm's value could
 * work, and refuses early what the API would refuse later (or what hccm would silently drop).
 */
import { type Cidr, formatCIDR, tryParseCIDR } from "../../net/cidr.ts";
import { formatIP, type IPAddress, type IPFamily, parseIPStrict } from "../../net/ip.ts";
import { int, type Parsed, type Reader } from "../kit/annotations/readers.ts";
import { formatDuration, parseDuration } from "../kit/duration.ts";
import { type NodeSelector, parseNodeSelector } from "./node-selector.ts";

const valid = <T>(value: T): Parsed<T> => ({ ok: true, value });
const invalid = <T>(reason?: string): Parsed<T> => (reason === undefined ? { ok: false } : { ok: false, reason });

/** One of `words`, in any case (hccm lowercases protocols, algorithms and certificate types before checking). */
export function word<const W extends string>(words: readonly W[]): Reader<W> {
  return {
    type: "enum",
    accepts: `one of ${words.join(", ")}`,
    parse: (t) => {
      const lower = t.toLowerCase();
      return (words as readonly string[]).includes(lower) ? valid(lower as W) : invalid();
    },
    format: (v) => v,
  };
}

/**
 * Whole seconds, in milliseconds: a Go duration (`15s`, `1m`, what hccm parses) or a bare number of seconds (what
 * hccm's reference page calls the type, though hccm itself refuses it). Bounds are in seconds, inclusive.
 */
export function seconds(bounds: { readonly min: number; readonly max?: number }): Reader<number> {
  const range = bounds.max === undefined ? `of at least ${bounds.min}s` : `from ${bounds.min}s to ${bounds.max}s`;
  return {
    type: "duration",
    accepts: `whole seconds ${range}, such as 15s, 1m or 15`,
    parse(t) {
      const ms = /^\d+$/.test(t) ? Number(t) * 1000 : parseDuration(t);
      if (ms === undefined || !Number.isSafeInteger(ms)) return invalid();
      if (ms % 1000 !== 0) return invalid("the API takes whole seconds");
      const s = ms / 1000;
      return s >= bounds.min && (bounds.max === undefined || s <= bounds.max) ? valid(ms) : invalid();
    },
    format: formatDuration,
  };
}

/**
 * The health check's numbers, one reader each for the `HCLOUD_LOAD_BALANCERS_HEALTH_CHECK_*` settings and the
 * `health-check-*` annotations, so both take exactly the same values. The API takes whole seconds; it refuses
 * retries outside 1 to 5 (its `invalid_input` answer names that range). Its document gives interval and timeout no
 * range: an hour bounds them, far past any check that still guards a node and short of a typo such as `999999999h`.
 */
export const healthCheckBounds = {
  intervalSeconds: { min: 1, max: 3600 },
  timeoutSeconds: { min: 1, max: 3600 },
  retries: { min: 1, max: 5 },
} as const;

export const healthCheckReaders = {
  interval: (): Reader<number> => seconds(healthCheckBounds.intervalSeconds),
  timeout: (): Reader<number> => seconds(healthCheckBounds.timeoutSeconds),
  retries: (): Reader<number> => int(healthCheckBounds.retries),
};

const familyReason = (family: IPFamily) => (family === 6 ? "Hetzner Cloud private networks are IPv4 only" : undefined);

/** An IPv4 address (a private network's). */
export function ipv4(): Reader<IPAddress> {
  return {
    type: "IPv4",
    accepts: "an IPv4 address such as 10.0.0.5",
    parse(t) {
      const address = parseIPStrict(t);
      if (!address) return invalid();
      return address.family === 4 ? valid(address) : invalid(familyReason(address.family));
    },
    format: formatIP,
  };
}

/** An IPv4 CIDR (a subnet of a private network). */
export function ipv4Cidr(): Reader<Cidr> {
  return {
    type: "CIDR",
    accepts: "an IPv4 CIDR such as 10.0.1.0/24",
    parse(t) {
      const network = tryParseCIDR(t);
      if (!network) return invalid();
      return network.family === 4 ? valid(network) : invalid(familyReason(network.family));
    },
    format: formatCIDR,
  };
}

/** An address of the given family (the load balancer's public ones). */
export function address(family: IPFamily): Reader<IPAddress> {
  return {
    type: family === 4 ? "IPv4" : "IPv6",
    accepts: `an ${family === 4 ? "IPv4" : "IPv6"} address`,
    parse(t) {
      const a = parseIPStrict(t);
      return a && a.family === family ? valid(a) : invalid();
    },
    format: formatIP,
  };
}

const LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A DNS name (`lb.example.com`, a trailing dot allowed); with `wildcard`, `*.example.com` too. */
export function dnsName(options: { readonly wildcard?: boolean; readonly orEmpty?: string } = {}): Reader<string> {
  const what = options.wildcard
    ? "a DNS name such as example.com or *.example.com"
    : "a DNS name such as lb.example.com";
  return {
    type: "DNS name",
    accepts: options.orEmpty ? `${what}, or empty to ${options.orEmpty}` : what,
    parse(t) {
      if (t === "") return options.orEmpty ? valid("") : invalid();
      const name = t.endsWith(".") ? t.slice(0, -1) : t;
      const labels = name.toLowerCase().split(".");
      if (options.wildcard && labels[0] === "*") labels.shift();
      const ok = name.length <= 253 && labels.length > 0 && labels.every((l) => LABEL.test(l));
      return ok ? valid(t) : invalid();
    },
    format: (v) => v,
  };
}

/** Text that must not be empty, as `pattern` describes it (`accepts`). */
export function nonEmpty(accepts: string, pattern = /^\S(.*\S)?$/): Reader<string> {
  return {
    type: "string",
    accepts,
    parse: (t) => (t !== "" && pattern.test(t) ? valid(t) : invalid()),
    format: (v) => v,
  };
}

/** A location or network zone name (`fsn1`, `eu-central`), or empty to clear the configured one. */
export function place(accepts: string): Reader<string> {
  return {
    type: "string",
    accepts: `${accepts}, or empty`,
    parse: (t) => (t === "" || /^[a-z0-9][a-z0-9-]*$/.test(t) ? valid(t) : invalid()),
    format: (v) => v,
  };
}

/** A certificate by ID (digits) or by name, as hccm resolves the items of `http-certificates`. */
export type CertificateRef = { readonly id: number } | { readonly name: string };

export function certificateRef(): Reader<CertificateRef> {
  return {
    type: "certificate",
    accepts: "a certificate's ID or name",
    parse(t) {
      if (!/^\d+$/.test(t)) return t === "" ? invalid() : valid({ name: t });
      const id = Number(t);
      return Number.isSafeInteger(id) && id >= 1 ? valid({ id }) : invalid("certificate IDs are whole numbers from 1");
    },
    format: (v) => ("id" in v ? String(v.id) : v.name),
  };
}

/** An HTTP status code or a pattern of one, as the health check takes them: `200`, `2??`, `30?`. */
export function statusCode(): Reader<string> {
  return {
    type: "status code",
    accepts: "a status code or a pattern such as 200 or 2??",
    parse: (t) => (/^[1-5][0-9?]{2}$/.test(t) ? valid(t) : invalid()),
    format: (v) => v,
  };
}

/** A Kubernetes label selector. */
export function nodeSelector(): Reader<NodeSelector> {
  return {
    type: "label selector",
    accepts: "a Kubernetes label selector such as node-role=lb,zone in (fsn1,nbg1)",
    parse(t) {
      const read = parseNodeSelector(t);
      return "problems" in read ? invalid(read.problems.join("; ")) : valid(read);
    },
    format: (v) => v.text,
  };
}

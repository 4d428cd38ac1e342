import { describe, expect, test } from "bun:test";
import type { CloudLoadBalancer } from "../api/load-balancer-schemas.ts";
import type { ServiceBody } from "../api/load-balancers.ts";
import { SERVICE_UID_LABEL } from "../api/load-balancers.ts";
import type { DesiredLoadBalancer } from "./desired.ts";
import { type Operation, planLoadBalancer } from "./plan.ts";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type Tweak<T> = (x: Mutable<T>) => void;

const tcpCheck = { protocol: "tcp" as const, port: 30080, interval: 15, timeout: 10, retries: 3, http: null };

/** A load balancer already as `desired()` wants it. */
function current(...tweaks: Tweak<CloudLoadBalancer>[]): CloudLoadBalancer {
  const lb: Mutable<CloudLoadBalancer> = {
    id: 7,
    name: "web",
    labels: { [SERVICE_UID_LABEL]: "uid-1", team: "a" },
    location: { name: "fsn1", network_zone: "eu-central" },
    load_balancer_type: { name: "lb11", max_targets: 25, deprecation: null },
    algorithm: { type: "round_robin" },
    public_net: {
      enabled: true,
      ipv4: { ip: "203.0.113.7", dns_ptr: "static.example" },
      ipv6: { ip: "2001:db8::1", dns_ptr: "static6.example" },
    },
    private_net: [{ network: 5, ip: "10.0.1.9" }],
    services: [
      {
        protocol: "tcp",
        listen_port: 80,
        destination_port: 30080,
        proxyprotocol: false,
        http: null,
        health_check: tcpCheck,
      },
    ],
    targets: [
      { type: "server", server: { id: 1 }, use_private_ip: false },
      { type: "server", server: { id: 2 }, use_private_ip: false },
    ],
  };
  for (const t of tweaks) t(lb);
  return lb;
}

function desired(...tweaks: Tweak<DesiredLoadBalancer>[]): DesiredLoadBalancer {
  const d: Mutable<DesiredLoadBalancer> = {
    uid: "uid-1",
    name: "web",
    create: { type: "lb11", location: "fsn1" },
    network: { id: 5 },
    services: [
      { listen_port: 80, protocol: "tcp", destination_port: 30080, health_check: { protocol: "tcp", port: 30080 } },
    ],
    targets: [
      { type: "server", server: { id: 1 }, use_private_ip: false },
      { type: "server", server: { id: 2 }, use_private_ip: false },
    ],
    proxyProtocol: false,
    ingress: { ipv6: true, privateIngress: true },
    warnings: [],
  };
  for (const t of tweaks) t(d);
  return d;
}

const rows: readonly (readonly [string, CloudLoadBalancer, DesiredLoadBalancer, Operation[]])[] = [
  ["nothing when converged", current(), desired(), []],
  [
    "labels one found by name, keeping its other labels",
    current((lb) => {
      lb.labels = { team: "a" };
    }),
    desired(),
    [{ op: "update", labels: { team: "a", [SERVICE_UID_LABEL]: "uid-1" } }],
  ],
  [
    "renames only when the name annotation asks",
    current((lb) => {
      lb.name = "old";
    }),
    desired((d) => {
      d.rename = "web";
    }),
    [{ op: "update", name: "web" }],
  ],
  [
    "keeps another name when no name annotation asks",
    current((lb) => {
      lb.name = "old";
    }),
    desired(),
    [],
  ],
  [
    "sets each reverse DNS name that differs; empty resets it",
    current(),
    desired((d) => {
      d.ipv4RDNS = "lb.example.com";
      d.ipv6RDNS = "";
    }),
    [
      { op: "changeDNSPtr", ip: "203.0.113.7", dnsPtr: "lb.example.com" },
      { op: "changeDNSPtr", ip: "2001:db8::1", dnsPtr: null },
    ],
  ],
  [
    "changes algorithm and type when asked and different",
    current(),
    desired((d) => {
      d.algorithm = "least_connections";
      d.type = "lb21";
    }),
    [
      { op: "changeAlgorithm", type: "least_connections" },
      { op: "changeType", type: "lb21" },
    ],
  ],
  [
    "leaves the type when nothing names one",
    current((lb) => {
      lb.load_balancer_type = { name: "lb31", max_targets: 75, deprecation: null };
    }),
    desired(),
    [],
  ],
  [
    "attaches when not attached, with the wanted address and subnet",
    current((lb) => {
      lb.private_net = [];
    }),
    desired((d) => {
      d.network = { id: 5, ip: "10.0.2.5", ipRange: "10.0.2.0/24" };
    }),
    [{ op: "attachToNetwork", network: 5, ip: "10.0.2.5", ipRange: "10.0.2.0/24" }],
  ],
  [
    "re-attaches when the private address differs",
    current(),
    desired((d) => {
      d.network = { id: 5, ip: "10.0.1.50" };
    }),
    [
      { op: "detachFromNetwork", network: 5 },
      { op: "attachToNetwork", network: 5, ip: "10.0.1.50" },
    ],
  ],
  [
    "a subnet only counts when attaching",
    current(),
    desired((d) => {
      d.network = { id: 5, ipRange: "10.0.2.0/24" };
    }),
    [],
  ],
  [
    "detaches every network when none is configured (hccm)",
    current(),
    desired((d) => {
      delete d.network;
    }),
    [{ op: "detachFromNetwork", network: 5 }],
  ],
  [
    "switches the public interface on before the targets change",
    current((lb) => {
      lb.public_net = { enabled: false, ipv4: null, ipv6: null };
    }),
    desired((d) => {
      d.publicInterface = true;
      d.targets = [{ type: "server", server: { id: 1 }, use_private_ip: false }];
    }),
    [
      { op: "setPublicInterface", enabled: true },
      { op: "removeTarget", target: { type: "server", server: { id: 2 }, use_private_ip: false } },
    ],
  ],
  [
    "switches it off only after the targets use private IPs",
    current(),
    desired((d) => {
      d.publicInterface = false;
      d.targets = [{ type: "server", server: { id: 1 }, use_private_ip: true }];
    }),
    [
      { op: "removeTarget", target: { type: "server", server: { id: 1 }, use_private_ip: false } },
      { op: "removeTarget", target: { type: "server", server: { id: 2 }, use_private_ip: false } },
      { op: "addTarget", target: { type: "server", server: { id: 1 }, use_private_ip: true } },
      { op: "setPublicInterface", enabled: false },
    ],
  ],
  [
    "deletes listeners of ports the Service dropped, adds new ones, updates changed ones",
    current((lb) => {
      lb.services = [
        { ...(lb.services[0] as CloudLoadBalancer["services"][number]), destination_port: 31000 },
        {
          protocol: "tcp",
          listen_port: 8080,
          destination_port: 30081,
          proxyprotocol: false,
          http: null,
          health_check: null,
        },
      ];
    }),
    desired((d) => {
      d.services = [
        ...d.services,
        { listen_port: 443, protocol: "tcp", destination_port: 30443, health_check: { protocol: "tcp", port: 30443 } },
      ];
    }),
    [
      { op: "deleteService", listenPort: 8080 },
      { op: "updateService", service: desired().services[0] as never },
      {
        op: "addService",
        service: {
          listen_port: 443,
          protocol: "tcp",
          destination_port: 30443,
          health_check: { protocol: "tcp", port: 30443 },
        },
      },
    ],
  ],
  [
    "compares only the fields the Service sets (unset ones are the API's or the user's)",
    current((lb) => {
      const s = lb.services[0] as Mutable<CloudLoadBalancer["services"][number]>;
      s.protocol = "http";
      s.http = {
        cookie_name: "X",
        cookie_lifetime: 300,
        certificates: [3, 4],
        redirect_http: false,
        sticky_sessions: true,
        timeout_idle: 60,
      };
    }),
    desired((d) => {
      d.services = [
        {
          listen_port: 80,
          protocol: "http",
          destination_port: 30080,
          http: { certificates: [4, 3], sticky_sessions: true },
          health_check: { protocol: "tcp", port: 30080 },
        },
      ];
    }),
    [],
  ],
  [
    "updates a listener whose health check differs in one field",
    current(),
    desired((d) => {
      d.services = [{ ...(d.services[0] as ServiceBody), health_check: { protocol: "tcp", port: 30080, retries: 1 } }];
    }),
    [
      {
        op: "updateService",
        service: {
          listen_port: 80,
          protocol: "tcp",
          destination_port: 30080,
          health_check: { protocol: "tcp", port: 30080, retries: 1 },
        },
      },
    ],
  ],
  [
    "removes IP targets no Node wants, adds the wanted ones, leaves label-selector targets alone",
    current((lb) => {
      lb.targets = [
        ...lb.targets,
        { type: "ip", ip: { ip: "198.51.100.1" } },
        { type: "label_selector", label_selector: { selector: "role=lb" }, use_private_ip: false },
      ];
    }),
    desired((d) => {
      d.targets = [...d.targets, { type: "ip", ip: { ip: "198.51.100.2" } }];
    }),
    [
      { op: "removeTarget", target: { type: "ip", ip: { ip: "198.51.100.1" } } },
      { op: "addTarget", target: { type: "ip", ip: { ip: "198.51.100.2" } } },
    ],
  ],
  [
    "adds only as many targets as the type holds, counting the removals; the rest are left out, not sent",
    current((lb) => {
      lb.load_balancer_type = { name: "lb11", max_targets: 3, deprecation: null };
      lb.targets = [...lb.targets, { type: "server", server: { id: 9 }, use_private_ip: false }];
    }),
    desired((d) => {
      d.targets = [3, 4, 1, 2, 5].map((id) => ({ type: "server", server: { id }, use_private_ip: false }));
    }),
    [
      { op: "removeTarget", target: { type: "server", server: { id: 9 }, use_private_ip: false } },
      { op: "addTarget", target: { type: "server", server: { id: 3 }, use_private_ip: false } },
      { op: "leaveOutTarget", target: { type: "server", server: { id: 4 }, use_private_ip: false }, max: 3 },
      { op: "leaveOutTarget", target: { type: "server", server: { id: 5 }, use_private_ip: false }, max: 3 },
    ],
  ],
];

describe("planLoadBalancer", () => {
  test.each(rows)("%s", (_name, lb, want, ops) => {
    expect(planLoadBalancer(lb, want)).toEqual(ops);
  });

  test("the load balancer itself, then its network, listeners and targets: in that order", () => {
    const lb = current((x) => {
      x.labels = {};
      x.private_net = [];
      x.services = [];
      x.targets = [];
    });
    const ops = planLoadBalancer(
      lb,
      desired((d) => {
        d.algorithm = "least_connections";
      }),
    );
    expect(ops.map((o) => o.op)).toEqual([
      "update",
      "changeAlgorithm",
      "attachToNetwork",
      "addService",
      "addTarget",
      "addTarget",
    ]);
  });
});

/**
 * The state of one emulated Hetzner Robot account: its dedicated servers and their power state. Tests and the
 * emulator's server change it directly; every read returns copies.
 */

export type OperatingStatus = "running" | "shut off" | "not supported";

export interface RobotSubnet {
  readonly ip: string;
  readonly mask: string;
}

export interface EmulatedRobotServer {
  /** `server_number`: the Robot server ID, in `hrobot://<number>`. */
  readonly number: number;
  /** `server_name`: set in Robot; hccm matches it against the Node name. */
  readonly name: string;
  /** `server_ip`: the main IPv4 address. */
  readonly ip: string;
  /** `server_ipv6_net`: the main /64, ending in `::`. */
  readonly ipv6Net: string;
  /** `AX41-NVMe`, `Server Auction`, … */
  readonly product: string;
  /** Data center, such as `FSN1-DC10`. */
  readonly dc: string;
  readonly traffic: string;
  readonly status: "ready" | "in process";
  readonly cancelled: boolean;
  readonly paidUntil: string;
  readonly subnets: readonly RobotSubnet[];
  /** What `GET /reset/{number}` reports. */
  readonly operatingStatus: OperatingStatus;
  /** The reset types the server offers. */
  readonly resetTypes: readonly string[];
}

export class RobotState {
  readonly #servers = new Map<number, EmulatedRobotServer>();
  #nextNumber = 321;

  /** A ready server with defaults: the next number, an address from 198.51.100.0/24 and a /64 of 2001:db8::/32. */
  addServer(server: Partial<EmulatedRobotServer> & { name: string }): EmulatedRobotServer {
    const number = server.number ?? this.#freeNumber();
    if (this.#servers.has(number)) throw new Error(`Robot server ${number} exists`);
    const n = this.#servers.size + 1;
    const ipv6Net = server.ipv6Net ?? `2001:db8:${n.toString(16)}::`;
    const full: EmulatedRobotServer = {
      ip: `198.51.100.${n % 254 || 254}`,
      product: "AX41-NVMe",
      dc: "FSN1-DC10",
      traffic: "unlimited",
      status: "ready",
      cancelled: false,
      paidUntil: "2026-12-31",
      subnets: [{ ip: ipv6Net, mask: "64" }],
      operatingStatus: "running",
      resetTypes: ["power", "power_long", "sw", "hw", "man"],
      ...server,
      ipv6Net,
      number,
    };
    this.#servers.set(number, full);
    return full;
  }

  updateServer(number: number, change: Partial<Omit<EmulatedRobotServer, "number">>): EmulatedRobotServer {
    const server = this.#servers.get(number);
    if (!server) throw new Error(`no Robot server ${number}`);
    const next = { ...server, ...change };
    this.#servers.set(number, next);
    return next;
  }

  /** The server left the account (cancelled and taken back). */
  deleteServer(number: number): void {
    this.#servers.delete(number);
  }

  getServer(number: number): EmulatedRobotServer | undefined {
    return this.#servers.get(number);
  }

  /** By main IPv4 address, for the deprecated `GET /server/{server-ip}`. */
  findByIP(ip: string): EmulatedRobotServer | undefined {
    return this.listServers().find((s) => s.ip === ip);
  }

  /** By server number, ascending, as Robot lists them. */
  listServers(): EmulatedRobotServer[] {
    return [...this.#servers.values()].sort((a, b) => a.number - b.number);
  }

  #freeNumber(): number {
    while (this.#servers.has(this.#nextNumber)) this.#nextNumber++;
    return this.#nextNumber++;
  }
}

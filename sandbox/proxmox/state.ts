/**
 * The state of one emulated Proxmox VE cluster: its Proxmox nodes, its guests, its HA groups. Tests and the
 * emulator's server change it directly; every read returns copies.
 */

export interface EmulatedInterface {
  readonly name: string;
  readonly addresses: readonly string[];
}

export interface EmulatedVM {
  readonly vmid: number;
  readonly type: "qemu" | "lxc";
  readonly name: string;
  /** The Proxmox node the guest runs on. */
  readonly node: string;
  readonly status: "running" | "stopped" | "paused";
  readonly template: boolean;
  readonly cpus: number;
  /** Bytes. */
  readonly maxmem: number;
  /** SMBIOS UUID, lower case. */
  readonly uuid: string;
  /** SMBIOS sku (stored base64-encoded in the config, as Cluster API writes it); absent ⇒ none. */
  readonly sku?: string;
  /** The guest agent's interfaces while it runs; `undefined` ⇒ "QEMU guest agent is not running". */
  readonly agent?: readonly EmulatedInterface[];
}

export interface HAGroupState {
  readonly group: string;
  readonly nodes: readonly string[];
}

export class ProxmoxState {
  readonly #vms = new Map<number, EmulatedVM>();
  readonly #nodes = new Map<string, "online" | "offline">();
  #nextID = 100;
  /** `undefined` ⇒ Proxmox VE 9: `/cluster/ha/groups` answers 500 (groups became rules). */
  haGroups: HAGroupState[] | undefined = [];

  constructor(nodes: readonly string[] = ["pve-a", "pve-b"]) {
    for (const n of nodes) this.#nodes.set(n, "online");
  }

  get nodes(): string[] {
    return [...this.#nodes.keys()];
  }

  nodeStatus(node: string): "online" | "offline" | undefined {
    return this.#nodes.get(node);
  }

  /** An offline Proxmox node shows its guests with status `unknown`. */
  setNodeStatus(node: string, status: "online" | "offline"): void {
    if (!this.#nodes.has(node)) throw new Error(`no Proxmox node "${node}"`);
    this.#nodes.set(node, status);
  }

  /** A running QEMU VM with defaults (2 vCPUs, 4 GiB, a fresh UUID, on the first node). */
  addVM(vm: Partial<EmulatedVM> & { name: string }): EmulatedVM {
    const vmid = vm.vmid ?? this.#freeID();
    if (this.#vms.has(vmid)) throw new Error(`VM ${vmid} exists`);
    const node = vm.node ?? this.nodes[0] ?? "pve";
    if (!this.#nodes.has(node)) this.#nodes.set(node, "online");
    const full: EmulatedVM = {
      type: "qemu",
      status: "running",
      template: false,
      cpus: 2,
      maxmem: 4 * 2 ** 30,
      uuid: crypto.randomUUID(),
      ...vm,
      vmid,
      node,
    };
    this.#vms.set(vmid, full);
    return full;
  }

  updateVM(vmid: number, change: Partial<Omit<EmulatedVM, "vmid">>): EmulatedVM {
    const vm = this.#vms.get(vmid);
    if (!vm) throw new Error(`no VM ${vmid}`);
    const next = { ...vm, ...change };
    this.#vms.set(vmid, next);
    return next;
  }

  /** Live migration: the VM keeps its ID and config, on another Proxmox node. */
  migrateVM(vmid: number, node: string): EmulatedVM {
    if (!this.#nodes.has(node)) throw new Error(`no Proxmox node "${node}"`);
    return this.updateVM(vmid, { node });
  }

  deleteVM(vmid: number): void {
    this.#vms.delete(vmid);
  }

  getVM(vmid: number): EmulatedVM | undefined {
    return this.#vms.get(vmid);
  }

  listVMs(): EmulatedVM[] {
    return [...this.#vms.values()];
  }

  #freeID(): number {
    while (this.#vms.has(this.#nextID)) this.#nextID++;
    return this.#nextID++;
  }
}

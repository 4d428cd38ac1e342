/** Firewalls: the body as sent (rules, Droplets, tags), the emulator's ID and time; applied at once (`succeeded`). */
export interface FirewallSpec {
  name: string;
  inbound_rules: unknown[];
  outbound_rules: unknown[];
  droplet_ids: number[];
  tags: string[];
}

export interface Firewall {
  readonly id: string;
  readonly createdAt: number;
  spec: FirewallSpec;
}

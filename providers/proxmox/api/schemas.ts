/**
 * valibot schemas of the Proxmox VE answers the provider reads, with the `{"data": …}` envelope. Unknown members
 * are allowed (each Proxmox VE release adds some); a member the provider needs that is missing or mistyped is a
 * `CloudApiSchemaError` naming it.
 */
import * as v from "valibot";

/** The `{"data": …}` envelope around every answer. */
const envelope = <const E extends v.ObjectEntries>(entries: E) => v.looseObject(entries);

/** Proxmox VE sends numbers as numbers, but flags as 0/1 and sometimes numbers as strings. */
const numeric = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^[0-9]+$/, "must be a number"))]),
  v.transform(Number),
);

export const versionAnswer = envelope({ data: v.looseObject({ version: v.string() }) });

const guest = v.looseObject({
  type: v.string(),
  vmid: v.optional(numeric),
  name: v.optional(v.string(), ""),
  node: v.optional(v.string(), ""),
  status: v.optional(v.string(), "unknown"),
  template: v.optional(numeric, 0),
  maxcpu: v.optional(numeric, 0),
  maxmem: v.optional(numeric, 0),
});

export const resourcesAnswer = envelope({ data: v.array(guest) });

export const configAnswer = envelope({ data: v.looseObject({ smbios1: v.optional(v.string()) }) });

const agentAddress = v.looseObject({ "ip-address": v.string() });
const agentInterface = v.looseObject({
  name: v.string(),
  "ip-addresses": v.optional(v.array(agentAddress), []),
});

export const agentAnswer = envelope({ data: v.looseObject({ result: v.array(agentInterface) }) });

export const haGroupsAnswer = envelope({
  data: v.array(
    v.looseObject({ group: v.string(), type: v.optional(v.string(), "group"), nodes: v.optional(v.string(), "") }),
  ),
});

/** PVE's error body: `{"data": null, "message": "…\n", "errors": {"<param>": "<why>"}}`. */
export function pveErrorOf(body: unknown): { code: string; message: string } | undefined {
  const b = body as { message?: unknown; errors?: unknown } | null;
  if (typeof b?.message !== "string") return undefined;
  const errors = b.errors && typeof b.errors === "object" ? ` ${JSON.stringify(b.errors)}` : "";
  return { code: "pve", message: `${b.message.trim()}${errors}` };
}

/**
 * `uuid=…,base64=1,sku=…` → uuid and decoded sku. Values are base64 when `base64=1` (Proxmox VE's way to carry
 * commas), else URI-style text.
 */
export function parseSmbios1(text: string | undefined): { uuid?: string; sku?: string } {
  if (!text) return {};
  const fields = new Map<string, string>();
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const base64 = fields.get("base64") === "1";
  const uuid = fields.get("uuid")?.toLowerCase();
  const rawSku = fields.get("sku");
  let sku: string | undefined;
  if (rawSku !== undefined) {
    try {
      sku = base64 ? Buffer.from(rawSku, "base64").toString("utf8") : decodeURIComponent(rawSku);
    } catch {
      sku = undefined;
    }
  }
  return { ...(uuid ? { uuid } : {}), ...(sku ? { sku } : {}) };
}

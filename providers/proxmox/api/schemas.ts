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

/**
 * PVE's error: the body `{"data": null, "message": "…\n", "errors": {"<param>": "<why>"}}`, or the reason phrase
 * alone when the body has no `message`: releases before libpve-http-server-perl 5.2.0 (January 2025) send
 * `{"data": null}`, and every release sends a 401 with no body.
 */
export function pveErrorOf(
  body: unknown,
  answer?: { readonly statusText: string },
): { code: string; message: string } | undefined {
  const b = body as { message?: unknown; errors?: unknown } | null | undefined;
  const errors = b?.errors && typeof b.errors === "object" ? ` ${JSON.stringify(b.errors)}` : "";
  const message = typeof b?.message === "string" ? b.message.trim() : answer?.statusText.trim();
  return message ? { code: "pve", message: `${message}${errors}` } : undefined;
}

/**
 * `uuid=…,base64=1,sku=…` → uuid and decoded sku. The sku is base64 whether or not `base64=1` is there, as the peer
 * (sergelogvinov/proxmox-cloud-controller-manager) reads it and Cluster API writes it: its own fixture
 * `sku=YzEubWVkaXVt` is `c1.medium`. A sku that is not base64 is none (the instance type falls back to the size).
 */
export function parseSmbios1(text: string | undefined): { uuid?: string; sku?: string } {
  if (!text) return {};
  const fields = new Map<string, string>();
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0) fields.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  const uuid = fields.get("uuid")?.toLowerCase();
  const sku = decodeBase64(fields.get("sku"));
  return { ...(uuid ? { uuid } : {}), ...(sku ? { sku } : {}) };
}

/** Standard base64 (padded, as Go's `base64.StdEncoding` wants it) as UTF-8 text; anything else is `undefined`. */
function decodeBase64(text: string | undefined): string | undefined {
  if (text === undefined || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return Buffer.from(text, "base64").toString("utf8");
}

/**
 * `ProxmoxApi` over one cluster's Proxmox VE API, on the cloud-API kit (providers/kit/http): the API token header
 * (`PVEAPIToken=<id>=<secret>`), the cluster's TLS trust, a timeout per attempt, retries, schemas for every
 * answer (schemas.ts) and the `cloudprovider_proxmox_api_*` metrics.
 */
import type * as v from "valibot";
import { redactUrlCredentials } from "../../../net/url-credentials.ts";
import type { CallContext } from "../../cloud.ts";
import { CloudApiClient, type CloudApiClientTuning, type CloudRequest } from "../../kit/http/client.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import type { AgentInterface, HAGroup, ProxmoxApi, ProxmoxVM, VMConfig } from "./client.ts";
import {
  agentAnswer,
  configAnswer,
  haGroupsAnswer,
  parseSmbios1,
  pveErrorOf,
  resourcesAnswer,
  versionAnswer,
} from "./schemas.ts";

export interface ProxmoxHttpApiOptions extends CloudApiClientTuning {
  /** Up to and including `/api2/json`, without a trailing slash. */
  readonly url: string;
  /** The cluster's region, in error messages: `proxmox/api[cluster-1].listVMs: …`. */
  readonly region: string;
  readonly tokenID: string;
  readonly tokenSecret: string;
  /** PEM of the CA to trust instead of the system's; or `insecure` to trust any certificate. */
  readonly ca?: string | undefined;
  readonly insecure?: boolean;
  readonly timeoutMs: number;
}

export class ProxmoxHttpApi implements ProxmoxApi {
  readonly #client: CloudApiClient;
  readonly #o: ProxmoxHttpApiOptions;

  constructor(o: ProxmoxHttpApiOptions) {
    this.#o = o;
    const base = o.fetch ?? fetch;
    const tls = o.insecure ? { rejectUnauthorized: false } : o.ca ? { ca: o.ca } : undefined;
    const tlsFetch = tls
      ? (((input: string | URL | Request, init?: RequestInit) => base(input, { ...init, tls })) as typeof fetch)
      : base;
    const authorization = `PVEAPIToken=${o.tokenID}=${o.tokenSecret}`;
    this.#client = new CloudApiClient({
      name: `proxmox/api[${o.region}]`,
      provider: "proxmox",
      baseUrl: o.url,
      auth: () => ({ authorization }),
      timeoutMs: o.timeoutMs,
      rateLimit: o.rateLimit,
      metrics: o.metrics,
      errorOf: pveErrorOf,
      userAgent: "ccm-ts proxmox",
      fetch: tlsFetch,
      ...(o.retry && { retry: o.retry }),
      ...(o.logger && { logger: o.logger }),
      ...(o.maxAnswerBytes !== undefined && { maxAnswerBytes: o.maxAnswerBytes }),
    });
  }

  /** One call; a 401 says what to fix: the cluster's `token_id` and `token_secret` (Proxmox VE says only "No ticket"). */
  async #request<S extends v.GenericSchema>(ctx: CallContext, req: CloudRequest<S>): Promise<v.InferOutput<S>> {
    try {
      return await this.#client.request(ctx, req);
    } catch (err) {
      if (!(err instanceof CloudApiError && err.status === 401)) throw err;
      const { region, url, tokenID } = this.#o;
      const fix = `the Proxmox VE cluster ${region} at ${redactUrlCredentials(url)} refused the API token: check the cluster's token_id (${tokenID}) and token_secret in the cloud-config, and that the token exists and is not expired`;
      throw new CloudApiError(err.operation, err.status, err.code, `${err.detail}; ${fix}`, err.attempts, {
        cause: err,
      });
    }
  }

  async version(ctx: CallContext): Promise<string> {
    const { data } = await this.#request(ctx, {
      operation: "version",
      method: "GET",
      path: "/version",
      answer: versionAnswer,
    });
    return data.version;
  }

  async listVMs(ctx: CallContext): Promise<ProxmoxVM[]> {
    const { data } = await this.#request(ctx, {
      operation: "listVMs",
      method: "GET",
      path: "/cluster/resources",
      query: { type: "vm" },
      answer: resourcesAnswer,
    });
    const out: ProxmoxVM[] = [];
    for (const r of data) {
      if ((r.type !== "qemu" && r.type !== "lxc") || r.vmid === undefined) continue;
      out.push({
        vmid: r.vmid,
        type: r.type,
        name: r.name,
        node: r.node,
        status: r.status,
        template: r.template === 1,
        maxcpu: r.maxcpu,
        maxmem: r.maxmem,
      });
    }
    return out;
  }

  async vmConfig(ctx: CallContext, node: string, vmid: number): Promise<VMConfig | undefined> {
    try {
      const { data } = await this.#request(ctx, {
        operation: "vmConfig",
        method: "GET",
        path: `/nodes/${encodeURIComponent(node)}/qemu/${vmid}/config`,
        answer: configAnswer,
        // Proxmox VE answers a definite "no such VM" with a 500, which the kit would retry as a server error.
        idempotent: false,
      });
      return parseSmbios1(data.smbios1);
    } catch (err) {
      // The VM left between the listing and this call: its config file "does not exist".
      if (err instanceof CloudApiError && err.status === 500 && /does not exist/.test(err.detail)) return undefined;
      throw err;
    }
  }

  async agentInterfaces(ctx: CallContext, node: string, vmid: number): Promise<AgentInterface[]> {
    const { data } = await this.#request(ctx, {
      operation: "agentInterfaces",
      method: "GET",
      path: `/nodes/${encodeURIComponent(node)}/qemu/${vmid}/agent/network-get-interfaces`,
      answer: agentAnswer,
      // "QEMU guest agent is not running" is a 500 that a retry would only repeat.
      idempotent: false,
    });
    return data.result.map((i) => ({ name: i.name, addresses: i["ip-addresses"].map((a) => a["ip-address"]) }));
  }

  async haGroups(ctx: CallContext): Promise<HAGroup[]> {
    const { data } = await this.#request(ctx, {
      operation: "haGroups",
      method: "GET",
      path: "/cluster/ha/groups",
      answer: haGroupsAnswer,
      idempotent: false,
    });
    return data
      .filter((g) => g.type === "group")
      .map((g) => ({
        group: g.group,
        nodes: g.nodes
          .split(",")
          .map((n) => n.split(":")[0]?.trim() ?? "")
          .filter((n) => n !== ""),
      }));
  }
}

/**
 * The Robot webservice calls the hcloud provider makes for dedicated servers (hccm's `hrobot-go` use: read only),
 * on the cloud-API kit: Basic auth through its `auth` hook, Robot's error envelope, schemas for every answer
 * (robot-schemas.ts), retries of 5xx and maintenance, and the `cloudprovider_hcloud_api_*` metrics.
 *
 * Error contract:
 * - A server that is gone is an answer: `getServer` and `powerState` resolve to `undefined`, and an account with no
 *   servers lists `[]` (Robot answers both with 404 `SERVER_NOT_FOUND`). Any other 404 (a wrong endpoint) throws.
 * - Robot's request limit (403 `RATE_LIMIT_EXCEEDED`) is a `RetryError`; until its wait is over, every call fails
 *   the same way without asking Robot (hccm's guard, `ROBOT_RATE_LIMIT_WAIT_TIME`). Unlike hccm, a wait of 0 still
 *   waits for one request's share of the budget (interval / max requests: 18 s for 200 an hour).
 * - Refused credentials (401) are a `RobotCredentialsError` naming the settings to check. Robot locks an address out
 *   for ten minutes after three failed logins, so after one the client asks Robot nothing for `authBackoffMs` (an
 *   hour): every call fails at once with a `RetryError` whose cause is that error, and the refusal is logged once.
 * - Everything else throws an `Error` starting `hcloud/robot.<method>: ` whose `cause` chain holds the kit's error.
 */
import type * as v from "valibot";
import type { CallContext } from "../../cloud.ts";
import { RetryError } from "../../errors.ts";
import { CloudApiClient, type CloudApiClientTuning, type CloudRequest } from "../../kit/http/client.ts";
import { CloudApiError } from "../../kit/http/errors.ts";
import {
  budgetOf,
  type RobotServerAnswer,
  resetAnswer,
  robotErrorOf,
  serverAnswer,
  serverListAnswer,
} from "./robot-schemas.ts";

export const defaultRobotEndpoint = "https://robot-ws.your-server.de";
/** hccm gives its Robot client 15 s. */
const TIMEOUT_MS = 15_000;
/** After refused credentials: long past Robot's ten-minute lock-out, so a wrong password never adds up to three. */
export const ROBOT_AUTH_BACKOFF_MS = 60 * 60_000;

/** Robot refused the webservice user or password (401): no call succeeds until they change. */
export class RobotCredentialsError extends Error {
  override readonly name = "RobotCredentialsError";
}

/** A dedicated server as the provider uses it. */
export interface RobotServer {
  readonly number: number;
  /** Set in Robot; must equal the Node's name. */
  readonly name: string;
  /** Main IPv4; absent on an IPv6-only server. */
  readonly ip?: string;
  /** Main IPv6 /64, such as `2a01:4f8:111:4221::`. */
  readonly ipv6Net?: string;
  readonly product: string;
  /** Data center, such as `FSN1-DC10`. */
  readonly dc: string;
  readonly cancelled: boolean;
}

/** `running`, `shut off`, or `not supported` where the model cannot tell. */
export type RobotPowerState = string;

export interface RobotApi {
  /** Every server of the account, in one call. */
  listServers(ctx: CallContext): Promise<RobotServer[]>;
  /** One server, or `undefined` when the account has no such number. */
  getServer(ctx: CallContext, number: number): Promise<RobotServer | undefined>;
  /** The server's `operating_status`, or `undefined` when the account has no such number. */
  powerState(ctx: CallContext, number: number): Promise<RobotPowerState | undefined>;
}

export interface RobotHttpApiOptions extends CloudApiClientTuning {
  readonly user: string;
  readonly password: string;
  /** Default Robot's own; the emulator's in tests. */
  readonly endpoint?: string;
  /** After a rate-limit answer, how long to stop asking Robot (`ROBOT_RATE_LIMIT_WAIT_TIME`). */
  readonly rateLimitWaitMs?: number;
  /** After refused credentials, how long to stop asking Robot; default `ROBOT_AUTH_BACKOFF_MS`. */
  readonly authBackoffMs?: number;
  readonly timeoutMs?: number;
}

const NAME = "hcloud/robot";

export class RobotHttpApi implements RobotApi {
  readonly #client: CloudApiClient;
  readonly #waitMs: number;
  readonly #authBackoffMs: number;
  readonly #now: () => number;
  readonly #logger: RobotHttpApiOptions["logger"];
  /** While Robot's budget is spent, or after it refused the credentials: until when, and the error that said so. */
  #blocked: { until: number; cause: Error } | undefined;

  constructor(o: RobotHttpApiOptions) {
    const authorization = `Basic ${Buffer.from(`${o.user}:${o.password}`).toString("base64")}`;
    this.#waitMs = o.rateLimitWaitMs ?? 0;
    this.#authBackoffMs = o.authBackoffMs ?? ROBOT_AUTH_BACKOFF_MS;
    this.#logger = o.logger;
    this.#now = o.now ?? Date.now;
    this.#client = new CloudApiClient({
      name: NAME,
      provider: "hcloud",
      baseUrl: o.endpoint ?? defaultRobotEndpoint,
      auth: () => ({ authorization }),
      timeoutMs: o.timeoutMs ?? TIMEOUT_MS,
      rateLimit: o.rateLimit,
      metrics: o.metrics,
      errorOf: robotErrorOf,
      userAgent: "ccm-ts hcloud",
      now: this.#now,
      ...(o.fetch && { fetch: o.fetch }),
      ...(o.retry && { retry: o.retry }),
      ...(o.logger && { logger: o.logger }),
      ...(o.maxAnswerBytes !== undefined && { maxAnswerBytes: o.maxAnswerBytes }),
    });
  }

  async listServers(ctx: CallContext): Promise<RobotServer[]> {
    const answer = await this.#call(ctx, {
      operation: "listServers",
      method: "GET",
      path: "/server",
      answer: serverListAnswer,
    });
    return (answer ?? []).map((w) => robotServer(w.server));
  }

  async getServer(ctx: CallContext, number: number): Promise<RobotServer | undefined> {
    const answer = await this.#call(ctx, {
      operation: "getServer",
      method: "GET",
      path: `/server/${number}`,
      answer: serverAnswer,
    });
    return answer && robotServer(answer.server);
  }

  async powerState(ctx: CallContext, number: number): Promise<RobotPowerState | undefined> {
    const answer = await this.#call(ctx, {
      operation: "powerState",
      method: "GET",
      path: `/reset/${number}`,
      answer: resetAnswer,
    });
    return answer?.reset.operating_status ?? undefined;
  }

  /** One call through the guard; `undefined` for Robot's `SERVER_NOT_FOUND`. */
  async #call<S extends v.GenericSchema>(
    ctx: CallContext,
    req: CloudRequest<S>,
  ): Promise<v.InferOutput<S> | undefined> {
    const op = `${NAME}.${req.operation}`;
    const blocked = this.#blocked;
    if (blocked && this.#now() < blocked.until) {
      const waitMs = blocked.until - this.#now();
      const why =
        blocked.cause instanceof RobotCredentialsError
          ? "Robot refused the credentials"
          : "Robot's request limit is spent";
      throw new RetryError(`${op}: ${why}; not asking again for ${waitMs}ms`, waitMs, { cause: blocked.cause });
    }
    try {
      return await this.#client.request(ctx, req);
    } catch (err) {
      if (!(err instanceof CloudApiError)) throw err;
      if (err.status === 404 && err.code === "SERVER_NOT_FOUND") return undefined;
      if (err.code === "RATE_LIMIT_EXCEEDED" || (err.status === 403 && err.code === "Forbidden")) {
        const waitMs = this.#rateLimitWait(err.detail);
        this.#blocked = { until: this.#now() + waitMs, cause: err };
        throw new RetryError(`${op}: Robot's request limit is spent (${err.detail}); retry after ${waitMs}ms`, waitMs, {
          cause: err,
        });
      }
      if (err.status === 401) {
        const refused = new RobotCredentialsError(
          `${op}: Robot refused the credentials (${err.detail}); check ROBOT_USER and ROBOT_PASSWORD, a webservice user from Robot's settings (Robot blocks an address for 10 minutes after 3 failed logins)`,
          { cause: err },
        );
        this.#blocked = { until: this.#now() + this.#authBackoffMs, cause: refused };
        this.#logger?.warn(
          `${NAME}: Robot refused ROBOT_USER and ROBOT_PASSWORD; not asking Robot again for ${Math.round(this.#authBackoffMs / 60_000)} minutes (Robot locks the address out after 3 failed logins): ${err.detail}`,
        );
        throw refused;
      }
      throw err;
    }
  }

  /** The configured wait, or at least one request's share of the budget Robot named. */
  #rateLimitWait(detail: string): number {
    const budget = budgetOf(detail);
    const share = budget ? Math.ceil((budget.intervalSeconds * 1000) / budget.maxRequests) : 60_000;
    return Math.max(this.#waitMs, share);
  }
}

function robotServer(s: RobotServerAnswer): RobotServer {
  return {
    number: s.server_number,
    name: s.server_name ?? "",
    ...(s.server_ip !== undefined && { ip: s.server_ip }),
    ...(s.server_ipv6_net !== undefined && { ipv6Net: s.server_ipv6_net }),
    product: s.product ?? "",
    dc: s.dc ?? "",
    cancelled: s.cancelled ?? false,
  };
}

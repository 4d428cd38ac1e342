/**
 * valibot schemas of the Robot webservice answers the hcloud provider reads (/work/shared/reference/hetzner-robot-api.md
 * §2), written from Robot's documentation. Unknown members are allowed; so is a missing or null member the provider
 * can do without (an IPv6-only server has no `server_ip`); a member it needs that is missing or mistyped is a
 * `CloudApiSchemaError` naming it.
 */
import * as v from "valibot";

const optionalText = v.pipe(
  v.nullish(v.string()),
  v.transform((s) => (s === null || s === undefined || s === "" ? undefined : s)),
);

const server = v.looseObject({
  server_number: v.pipe(v.number(), v.integer(), v.minValue(1)),
  server_name: v.optional(v.nullable(v.string()), ""),
  server_ip: optionalText,
  server_ipv6_net: optionalText,
  product: v.optional(v.nullable(v.string()), ""),
  dc: v.optional(v.nullable(v.string()), ""),
  status: v.optional(v.nullable(v.string()), ""),
  cancelled: v.optional(v.nullable(v.boolean()), false),
});

/** `GET /server`: an array of `{"server": …}`. */
export const serverListAnswer = v.array(v.looseObject({ server }));

/** `GET /server/{number}`. */
export const serverAnswer = v.looseObject({ server });

/** `GET /reset/{number}`. */
export const resetAnswer = v.looseObject({
  reset: v.looseObject({
    server_number: v.pipe(v.number(), v.integer()),
    operating_status: v.optional(v.nullable(v.string()), "not supported"),
  }),
});

export type RobotServerAnswer = v.InferOutput<typeof server>;

/**
 * Robot's error body, `{"error": {"status", "code", "message"}}`; a rate-limit answer's `max_request` and
 * `interval` (seconds) are kept in the message, since they say how long the budget lasts.
 */
export function robotErrorOf(body: unknown): { code: string; message: string } | undefined {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (typeof error?.code !== "string") return undefined;
  const message = typeof error.message === "string" ? error.message : "";
  const { max_request: max, interval } = error;
  const budget = typeof max === "number" && typeof interval === "number" ? ` (${max} requests per ${interval}s)` : "";
  return { code: error.code, message: `${message}${budget}` };
}

/** The budget of a `RATE_LIMIT_EXCEEDED` message, as `robotErrorOf` wrote it. */
export function budgetOf(message: string): { maxRequests: number; intervalSeconds: number } | undefined {
  const m = /\((\d+) requests per (\d+)s\)$/.exec(message);
  return m ? { maxRequests: Number(m[1]), intervalSeconds: Number(m[2]) } : undefined;
}

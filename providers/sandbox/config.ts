/**
 * The sandbox provider's cloud-config (`--cloud-config`, YAML or JSON), documented in docs/sandbox.md:
 *
 * ```yaml
 * url: http://127.0.0.1:8081      # required: the simulated cloud's base URL
 * tokenFile: /run/sandbox/token   # or `token: …`, or neither and SANDBOX_CLOUD_TOKEN in the environment
 * timeoutMs: 10000                # per cloud call
 * cluster: demo                   # optional: the cluster name on load balancers and routes
 * instances: legacy               # optional: serve the legacy Instances and Zones instead of InstancesV2
 * loadBalancer:                   # optional: which spec.loadBalancerClass values this manager serves
 *   classes: [sandbox.example.com/lb]
 *   classless: false              # default true: also Services without a class
 * ```
 */
import * as v from "valibot";
import { parseCloudConfig } from "../config.ts";
import { cloudConfigSettings } from "../kit/settings.ts";
import { loadBalancerClassFields, servesNothing, servesNothingMessage } from "../load-balancer-classes.ts";

/** The environment variable that supplies the token when the cloud-config names none. */
export const tokenEnvVar = "SANDBOX_CLOUD_TOKEN";

export const sandboxConfigKeys = [
  "url",
  "token",
  "tokenFile",
  "timeoutMs",
  "cluster",
  "instances",
  "loadBalancer",
] as const;

const defaultSource = "the sandbox cloud-config";

/**
 * The schema. It takes the environment because "a token from somewhere" is one rule over the file and the
 * environment, and belongs with the others so that every problem is reported at once.
 */
export function sandboxConfigSchema(env: Readonly<Record<string, string | undefined>>) {
  const hasEnvToken = Boolean(env[tokenEnvVar]);
  return v.pipe(
    v.objectWithRest(
      {
        url: v.pipe(
          v.string("must be a string such as http://127.0.0.1:8081"),
          v.check(isHttpUrl, "must be an http:// or https:// URL such as http://127.0.0.1:8081"),
          v.transform((url) => url.replace(/\/+$/, "")),
        ),
        token: v.exactOptional(
          v.pipe(
            v.string("must be a string"),
            v.check((t) => t.trim() !== "", "must not be empty or only whitespace"),
          ),
        ),
        tokenFile: v.exactOptional(v.pipe(v.string("must be a file path"), v.nonEmpty("must not be empty"))),
        timeoutMs: v.optional(
          v.pipe(
            v.number("must be a number of milliseconds"),
            v.integer("must be a whole number of milliseconds"),
            v.minValue(1, "must be at least 1"),
            v.maxValue(600_000, "must be at most 600000 (10 minutes)"),
          ),
          10_000,
        ),
        cluster: v.exactOptional(v.pipe(v.string("must be a string"), v.nonEmpty("must not be empty"))),
        instances: v.optional(
          v.picklist(
            ["v2", "legacy"],
            "must be v2 (InstancesV2, the default) or legacy (the older Instances and Zones interfaces)",
          ),
          "v2",
        ),
        loadBalancer: v.exactOptional(
          v.pipe(
            v.objectWithRest(
              loadBalancerClassFields,
              v.never("is not a loadBalancer field; use classes and classless"),
              "must be a mapping such as { classes: [sandbox.example.com/lb], classless: false }",
            ),
            v.forward(
              v.partialCheck(
                [["classes"], ["classless"]],
                (lb) => servesNothing(lb) === undefined,
                servesNothingMessage,
              ),
              ["classless"],
            ),
          ),
        ),
      },
      v.never(`is not a known key; the keys are ${sandboxConfigKeys.join(", ")}`),
      (issue) => {
        if (issue.expected === '"url"') {
          return "is required: the simulated cloud's base URL, such as http://127.0.0.1:8081 (the sandbox prints it)";
        }
        return "must be a mapping of keys such as url: and tokenFile:";
      },
    ),
    v.forward(
      v.partialCheck(
        [["token"], ["tokenFile"]],
        (c) => c.token === undefined || c.tokenFile === undefined,
        "set either token or tokenFile, not both",
      ),
      ["tokenFile"],
    ),
    v.forward(
      v.partialCheck(
        [["token"], ["tokenFile"]],
        (c) => hasEnvToken || c.token !== undefined || c.tokenFile !== undefined,
        `is required: set token or tokenFile, or the environment variable ${tokenEnvVar}`,
      ),
      ["token"],
    ),
  );
}

/** The validated cloud-config; at most one of `token` and `tokenFile` is set. */
export interface SandboxConfig {
  /** Without a trailing slash. */
  readonly url: string;
  readonly token?: string;
  readonly tokenFile?: string;
  readonly timeoutMs: number;
  readonly cluster?: string;
  /** Which instance interfaces the provider serves: `v2` (InstancesV2) or `legacy` (Instances and Zones). */
  readonly instances: "v2" | "legacy";
  /** `classes` and `classless`; read with `loadBalancerClassesOf`. */
  readonly loadBalancer?: { readonly classes?: readonly string[]; readonly classless?: boolean };
}

/** Parse and validate; throws a `ConfigError` listing every problem. `undefined` text means no file was given. */
export function parseSandboxConfig(
  text: string | undefined,
  source: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): SandboxConfig {
  return parseCloudConfig(sandboxConfigSchema(env), text, source ?? defaultSource);
}

/** The settings: the cloud-config with the bearer token found, from `token`, `tokenFile` (trimmed) or the environment. */
export type SandboxSettings = Omit<SandboxConfig, "token" | "tokenFile"> & { readonly token: string };

/**
 * The cloud-config, then the token: `token`, else the content of `tokenFile`, else the environment variable. An
 * unreadable or empty token file is a `ConfigError` on `tokenFile`.
 */
export const sandboxSettings = cloudConfigSettings<SandboxConfig, SandboxSettings>({
  schema: sandboxConfigSchema,
  async resolve({ token, tokenFile, ...config }, tools) {
    const found =
      token ?? (tokenFile === undefined ? tools.env[tokenEnvVar] : await tools.secretFile(tokenFile, "tokenFile"));
    return { ...config, token: found ?? "" };
  },
});

function isHttpUrl(value: string): boolean {
  if (!URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}

/**
 * The kubeconfig file format (`apiVersion: v1`, `kind: Config`) as one valibot schema, and the model we read it into.
 *
 * Why our own and not `@kubernetes/client-node`'s `KubeConfig`: importing it loads the whole generated API (its
 * `config.js` imports `gen/index.js`), 7.6 MiB of resident memory in the compiled executable for a parser, against the
 * idle-memory target (docs/performance.md). `kubeconfig.test.ts` checks this parser against client-node's on the same
 * files, so the two read every field we use alike.
 *
 * As in client-go, a field of the wrong type anywhere is an error, but a missing server or command is only
 * reported for the entries the current context uses (by `transport.ts`). Unknown fields (`extensions`,
 * `disable-compression`, `preferences`, …) are kept out of the model and ignored.
 */
import * as v from "valibot";
import type { ExecConfig } from "./credentials.ts";

const text = v.nullish(v.string());
const flag = v.nullish(v.boolean());

const NamedCluster = v.object({
  name: v.pipe(v.string(), v.nonEmpty("must not be empty")),
  cluster: v.looseObject({
    server: text,
    "certificate-authority": text,
    "certificate-authority-data": text,
    "insecure-skip-tls-verify": flag,
    "tls-server-name": text,
    "proxy-url": text,
  }),
});

const ExecSchema = v.looseObject({
  command: text,
  args: v.nullish(v.array(v.string())),
  env: v.nullish(v.array(v.object({ name: v.string(), value: v.string() }))),
  apiVersion: text,
  installHint: text,
  provideClusterInfo: flag,
});

const NamedUser = v.object({
  name: v.pipe(v.string(), v.nonEmpty("must not be empty")),
  user: v.nullish(
    v.looseObject({
      token: text,
      "token-file": text,
      "client-certificate": text,
      "client-certificate-data": text,
      "client-key": text,
      "client-key-data": text,
      username: text,
      password: text,
      as: text,
      exec: v.nullish(ExecSchema),
      "auth-provider": v.nullish(
        v.looseObject({ name: v.string(), config: v.nullish(v.record(v.string(), v.unknown())) }),
      ),
    }),
  ),
});

const NamedContext = v.object({
  name: v.pipe(v.string(), v.nonEmpty("must not be empty")),
  context: v.looseObject({ cluster: text, user: text, namespace: text }),
});

/** One kubeconfig file as YAML (or JSON) parses it. */
export const KubeconfigFileSchema = v.looseObject({
  clusters: v.nullish(v.array(NamedCluster)),
  users: v.nullish(v.array(NamedUser)),
  contexts: v.nullish(v.array(NamedContext)),
  "current-context": text,
});

export type KubeconfigFile = v.InferOutput<typeof KubeconfigFileSchema>;

export interface KubeCluster {
  readonly name: string;
  /** Empty when the file gives none; the transport reports it if this cluster is used. */
  readonly server: string;
  /** Absolute. */
  readonly caFile?: string | undefined;
  /** Base64 PEM, as in the file. */
  readonly caData?: string | undefined;
  readonly skipTLSVerify: boolean;
  readonly tlsServerName?: string | undefined;
  readonly proxyUrl?: string | undefined;
}

export interface KubeUser {
  readonly name: string;
  /** The folder of the file that defined the user: relative exec commands resolve there, as in kubectl. */
  readonly dir: string;
  readonly token?: string | undefined;
  /** Absolute; re-read while running, unlike client-node, which reads it once. */
  readonly tokenFile?: string | undefined;
  readonly certFile?: string | undefined;
  readonly certData?: string | undefined;
  readonly keyFile?: string | undefined;
  readonly keyData?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly impersonateUser?: string | undefined;
  /** `command` may be empty here; the transport reports it if this user is used. */
  readonly exec?: ExecConfig | undefined;
  readonly authProvider?: { readonly name: string; readonly config: Readonly<Record<string, unknown>> } | undefined;
}

export interface KubeContext {
  readonly name: string;
  readonly cluster: string;
  readonly user?: string | undefined;
  readonly namespace?: string | undefined;
}

/** A kubeconfig after merging: entries by name, and the current context's name ("" when unset). */
export interface Kubeconfig {
  readonly clusters: ReadonlyMap<string, KubeCluster>;
  readonly users: ReadonlyMap<string, KubeUser>;
  readonly contexts: ReadonlyMap<string, KubeContext>;
  readonly currentContext: string;
}

/**
 * `cloud-controller-manager doctor [same flags as a run]`: explains a stuck cluster. It checks, in order, that the
 * Kubernetes API answers and accepts the credentials, that the RBAC the enabled controllers need is granted
 * (SelfSubjectAccessReview), that the provider's configuration and credentials work (a cheap read; for the composite,
 * each of its providers on its own line), and lists every node still carrying the uninitialized taint with the reason
 * the provider gives (and, for the composite, which of its providers the node belongs to). Exit 1 when anything is
 * wrong; every finding says what to do.
 */
import { defineCommand } from "citty";
import { enabledControllers } from "../controllers/names.ts";
import { fetchInitializationMetadata } from "../controllers/node/metadata.ts";
import { classifyStuck } from "../controllers/node/stuck.ts";
import { requiredAccess } from "../controllers/permissions.ts";
import { createKubeClient } from "../kube/client.ts";
import { type KubeClient, Resources } from "../kube/client-types.ts";
import type { KubeObject, Node } from "../kube/objects.ts";
import { loadTransport } from "../kube/transport.ts";
import { Taints } from "../kube/well-known.ts";
import { redactUrlCredentials } from "../net/url-credentials.ts";
import type { CloudProvider } from "../providers/cloud.ts";
import { isCompositeProvider } from "../providers/composite/provider.ts";
import { type CloudFailureKind, cloudFailureKind } from "../providers/kit/http/errors.ts";
import type { Subcommand, SubcommandEnv } from "./command.ts";
import { loadLeaderMigration, migrationLeaseAccess } from "./leader-migration.ts";
import type { Options } from "./options.ts";
import { readSubcommandFlags } from "./subcommand-options.ts";

type Print = (line: string) => void;
const OK = "ok  ";
const BAD = "FAIL";
const NOTE = "note";

export const doctorCommand: Subcommand = (env) =>
  defineCommand({
    meta: {
      name: "doctor",
      description: "check API access, RBAC, cloud credentials and stuck nodes, and say what to do",
    },
    run: async ({ rawArgs }) => runDoctor(env, rawArgs, (l) => process.stdout.write(`${redactUrlCredentials(l)}\n`)),
  });

export async function runDoctor(env: SubcommandEnv, argv: readonly string[], print: Print): Promise<number> {
  const { parsed, presetErrors, built } = readSubcommandFlags(env, argv);
  const errors = [...parsed.errors, ...presetErrors, ...(built.ok ? [] : built.errors)];
  if (errors.length > 0 || !built.ok) {
    print(`${BAD} flags: ${errors.join("; ")}`);
    return 1;
  }
  const o = built.options;
  let failed = false;

  const client = await checkApi(o, print);
  if (!client) return 1;
  if (!(await checkRbac(client, o, print))) failed = true;
  const { provider, ok } = await checkProvider(env, o, print);
  if (!ok) failed = true;
  if (!(await checkNodes(client, provider, print))) failed = true;
  print(
    failed ? "doctor found problems; fix them from the top, the first one often causes the rest." : "all checks passed",
  );
  return failed ? 1 : 0;
}

async function checkApi(o: Options, print: Print): Promise<KubeClient | undefined> {
  let client: KubeClient;
  let where: string;
  try {
    const t = loadTransport({ kubeconfig: o.kubeconfig || undefined, master: o.master || undefined, env: process.env });
    where = `${t.server} (from ${t.source})`;
    client = createKubeClient(t, {
      qps: o.kubeApiQps,
      burst: o.kubeApiBurst,
      userAgent: "cloud-controller-manager/doctor",
    });
  } catch (err) {
    print(`${BAD} Kubernetes client: ${(err as Error).message}`);
    print("     fix: pass --kubeconfig=<path> (or run in-cluster), or --master=<url>");
    return undefined;
  }
  try {
    const version = (await client.raw("GET", "/version")) as { gitVersion?: string };
    await client.list(Resources.nodes, { limit: 1 });
    print(
      `${OK} Kubernetes API at ${where} answers (${version.gitVersion ?? "unknown version"}) and accepts the credentials`,
    );
    return client;
  } catch (err) {
    const status = (err as { status?: number }).status;
    print(`${BAD} Kubernetes API at ${where}: ${(err as Error).message}`);
    print(
      status === 401
        ? "     fix: the credentials were refused; renew the token or client certificate in the kubeconfig"
        : status === 403
          ? "     fix: the credentials work but may not list nodes; apply deploy/kubernetes (ClusterRole and binding)"
          : "     fix: check that the API server runs and is reachable from here (address, port, firewall, CA)",
    );
    return undefined;
  }
}

async function checkRbac(client: KubeClient, o: Options, print: Print): Promise<boolean> {
  // With leader migration, its Lease too (an unreadable config is the manager's start error, not doctor's).
  const migration = loadLeaderMigration(o);
  const needed = [
    ...requiredAccess(enabledControllers(o.controllers), o.leaderElection),
    ...migrationLeaseAccess(migration.ok ? migration.config : undefined, o.leaderElection.namespace),
  ];
  const missing: string[] = [];
  for (const p of needed) {
    let review: { status?: { allowed?: boolean } };
    try {
      review = await client.create<KubeObject & { status?: { allowed?: boolean } }>(
        Resources.selfSubjectAccessReviews,
        {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SelfSubjectAccessReview",
          spec: {
            resourceAttributes: {
              group: p.group,
              resource: p.resource,
              verb: p.verb,
              ...(p.subresource ? { subresource: p.subresource } : {}),
              ...(p.namespace ? { namespace: p.namespace } : {}),
              ...(p.name ? { name: p.name } : {}),
            },
          },
        } as never,
      );
    } catch (err) {
      print(`${BAD} RBAC: cannot ask the API server (SelfSubjectAccessReview): ${(err as Error).message}`);
      print(
        "     fix: these credentials must be allowed to create selfsubjectaccessreviews (every user is, by default)",
      );
      return false;
    }
    if (!review.status?.allowed) {
      const what = `${p.resource}${p.subresource ? `/${p.subresource}` : ""}${p.group ? `.${p.group}` : ""}`;
      missing.push(`${p.verb} ${what}${p.namespace ? ` in ${p.namespace}` : ""} (used for: ${p.why})`);
    }
  }
  if (missing.length === 0) {
    print(`${OK} RBAC: all ${needed.length} permissions the enabled controllers need are granted`);
    return true;
  }
  print(`${BAD} RBAC: ${missing.length} permission(s) missing for these credentials:`);
  for (const m of missing) print(`       - ${m}`);
  print("     fix: apply deploy/kubernetes/ (or add these rules to the ClusterRole bound to this identity)");
  return false;
}

/**
 * The provider, and whether its checks passed. A composite with one failing part is still returned: the nodes of
 * its other parts can be explained.
 */
async function checkProvider(
  env: SubcommandEnv,
  o: Options,
  print: Print,
): Promise<{ provider?: CloudProvider; ok: boolean }> {
  let provider: CloudProvider;
  try {
    provider = await env.registry.init(o.cloudProvider, o.cloudConfig || undefined, process.env, {
      maxAnswerBytes: o.cloudApiMaxAnswerBytes,
    });
  } catch (err) {
    print(`${BAD} cloud provider "${o.cloudProvider}": ${(err as Error).message}`);
    print("     fix: correct --cloud-config as the message says");
    return { ok: false };
  }
  if (isCompositeProvider(provider)) {
    // One after the other, so the lines come in the cloud-config's order.
    let ok = true;
    for (const part of provider.parts) {
      const label = `provider "${part.name}" (composite part)`;
      if (!(await checkAccess(part.provider, label, print, { part: true }))) ok = false;
    }
    return { provider, ok };
  }
  const ok = await checkAccess(provider, `cloud provider "${o.cloudProvider}"`, print);
  return ok ? { provider, ok } : { ok };
}

/** The fix for a failed credential check, by why it failed. */
const accessFix: Record<CloudFailureKind, string> = {
  unavailable: "check the cloud's status page and the network path from here to its API address",
  credentials:
    "check the cloud API address and the credentials in --cloud-config (or its token file / env): the cloud refused them",
  configuration: "check the cloud API address and the credentials in --cloud-config (or its token file / env)",
};

/**
 * One provider's credential check, printed under `label`; a composite has each part checked on its own line. A
 * composite part whose cloud is unavailable is said to be retried: the manager starts without it (degraded) and
 * retries it, where a provider alone, or a part with refused credentials or a wrong configuration, stops the manager.
 * Either way the check fails.
 */
async function checkAccess(
  provider: CloudProvider,
  label: string,
  print: Print,
  { part = false }: { part?: boolean } = {},
): Promise<boolean> {
  if (!provider.verifyAccess) {
    print(`${NOTE} ${label} offers no credential check; its configuration parsed`);
    return true;
  }
  try {
    await provider.verifyAccess({ signal: AbortSignal.timeout(15_000) });
    print(`${OK} ${label}: configuration and credentials work`);
    return true;
  } catch (err) {
    const kind = cloudFailureKind(err);
    const unreachable = kind === "unavailable" && part;
    print(`${BAD} ${label}: ${unreachable ? "unreachable (will be retried): " : ""}${(err as Error).message}`);
    print(`     fix: ${accessFix[kind]}`);
    if (unreachable) {
      print("     the manager starts without this provider (its Nodes kept as they are) and retries it with back-off");
    }
    return false;
  }
}

async function checkNodes(client: KubeClient, provider: CloudProvider | undefined, print: Print): Promise<boolean> {
  let nodes: Node[];
  try {
    nodes = (await client.list<Node>(Resources.nodes)).items;
  } catch (err) {
    print(`${BAD} nodes: cannot list them: ${(err as Error).message}`);
    return false;
  }
  const stuck = nodes.filter((n) => (n.spec?.taints ?? []).some((t) => t.key === Taints.uninitialized));
  if (stuck.length === 0) {
    print(`${OK} nodes: all ${nodes.length} initialised`);
    return true;
  }
  print(`${BAD} nodes: ${stuck.length} of ${nodes.length} still carry ${Taints.uninitialized}:`);
  for (const node of stuck) {
    print(`       - ${node.metadata?.name}: ${await stuckReason(provider, node)}`);
    if (provider && isCompositeProvider(provider)) print(`         belongs to ${provider.ownerOf(node)}`);
  }
  return false;
}

async function stuckReason(provider: CloudProvider | undefined, node: Node): Promise<string> {
  if (!provider) return "cannot ask the cloud (the provider check failed above)";
  const ctx = { signal: AbortSignal.timeout(15_000) };
  try {
    const metadata = await fetchInitializationMetadata(provider, ctx, node);
    const spec = metadata === null ? classifyStuck(node, { nullMetadata: true }) : undefined;
    if (spec) return `${spec.reason}: ${spec.message}`;
    return "the cloud knows this node; is a cloud-controller-manager running and leading? (see the lease in kube-system and its logs)";
  } catch (err) {
    const spec = classifyStuck(node, { error: err });
    return spec ? `${spec.reason}: ${spec.message}` : (err as Error).message;
  }
}

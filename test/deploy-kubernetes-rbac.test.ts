/**
 * deploy/kubernetes/api-calls.json against the code and against the RBAC: the list names every client call the
 * code makes, the ClusterRole and Role grant exactly the list's calls (each covered, no rule unused, no wildcard),
 * a provider's own calls are granted by its component under providers/<name>/, and controllers/permissions.ts
 * (what `doctor` checks) asks for the same permissions.
 */
import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { API_CALLS, requiredAccess } from "../controllers/permissions.ts";
import { Resources } from "../kube/client-types.ts";

const ROOT = resolve(import.meta.dir, "..");
const DIR = join(ROOT, "deploy", "kubernetes");

/** One entry of api-calls.json, as controllers/permissions.ts reads it. */
type Call = (typeof API_CALLS)[number];
interface Rule {
  readonly apiGroups?: string[];
  readonly resources?: string[];
  readonly resourceNames?: string[];
  readonly nonResourceURLs?: string[];
  readonly verbs: string[];
}
// biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
type Doc = any;
/** One permission: a verb on a resource (or URL), in a namespace ("*": every one), for a name ("*": any). */
interface Grant {
  readonly verb: string;
  readonly target: string;
  readonly namespace: string;
  readonly name: string;
}

const calls = API_CALLS;
const yamlDocs = async (path: string): Promise<Doc[]> =>
  (await readFile(path, "utf8"))
    .split(/^---$/m)
    .map((d) => Bun.YAML.parse(d) as Doc)
    .filter((d) => d);
const serviceAccount = (await yamlDocs(join(DIR, "base", "serviceaccount.yaml")))[0];
const baseRbac = await yamlDocs(join(DIR, "base", "rbac.yaml"));
const providersDir = join(DIR, "providers");
const providerRbac = new Map<string, Doc[]>();
for (const name of existsSync(providersDir) ? await readdir(providersDir) : []) {
  // A component whose provider needs nothing beyond the base rules (proxmox) has no rbac.yaml.
  const file = join(providersDir, name, "rbac.yaml");
  if (existsSync(file)) providerRbac.set(name, await yamlDocs(file));
}

interface Target {
  readonly group?: string | undefined;
  readonly resource?: string | undefined;
  readonly subresource?: string | undefined;
  readonly nonResourceURL?: string | undefined;
}
const callTarget = (c: Target) =>
  c.nonResourceURL ?? `${c.group ?? ""}/${c.subresource ? `${c.resource}/${c.subresource}` : (c.resource ?? "")}`;
const describeCall = (c: Call) => `${c.verb} ${callTarget(c)}${c.namespace ? ` in ${c.namespace}` : ""}`;
const providerOf = (by: string) => (by.startsWith("provider:") ? by.slice("provider:".length) : undefined);
/** Calls our manifests must grant: not granted to everyone already, and made by the manager when `core`. */
const grantable = calls.filter((c) => !c.defaultRole);
const coreCalls = grantable.filter((c) => c.by.some((b) => !providerOf(b)));

/** The grants of the rules in `docs` bound to the ServiceAccount (ClusterRole: everywhere; Role: its namespace). */
function grants(docs: Doc[]): Grant[] {
  const sa = serviceAccount.metadata;
  const boundTo = (b: Doc) =>
    b.subjects?.some((s: Doc) => s.kind === "ServiceAccount" && s.name === sa.name && s.namespace === sa.namespace);
  const out: Grant[] = [];
  for (const [bindingKind, roleKind] of [
    ["ClusterRoleBinding", "ClusterRole"],
    ["RoleBinding", "Role"],
  ] as const) {
    for (const binding of docs.filter((d) => d.kind === bindingKind && boundTo(d))) {
      const role = docs.find((r) => r.kind === roleKind && r.metadata.name === binding.roleRef.name);
      if (!role) throw new Error(`${bindingKind} ${binding.metadata.name}: no ${roleKind} ${binding.roleRef.name}`);
      const namespace = roleKind === "Role" ? role.metadata.namespace : "*";
      for (const rule of role.rules as Rule[]) {
        const targets =
          rule.nonResourceURLs ??
          (rule.apiGroups ?? []).flatMap((group) => (rule.resources ?? []).map((r) => `${group}/${r}`));
        for (const t of targets)
          for (const verb of rule.verbs)
            for (const name of rule.resourceNames ?? ["*"]) out.push({ verb, target: t, namespace, name });
      }
    }
  }
  return out;
}

/** RBAC's matching: a rule with resourceNames never matches a request without a name (create, list, watch). */
const allows = (g: Grant, c: Call) =>
  g.verb === c.verb &&
  g.target === callTarget(c) &&
  (g.namespace === "*" || g.namespace === c.namespace) &&
  (g.name === "*" || g.name === c.name);

/** Grants no call among `needed` uses, or that reach every namespace where every call they serve has one. */
function excess(given: Grant[], needed: Call[]): string[] {
  const show = (g: Grant) => `${g.verb} ${g.target} in ${g.namespace === "*" ? "every namespace" : g.namespace}`;
  const unused = given.filter((g) => !needed.some((c) => allows(g, c))).map(show);
  const wider = given
    .filter((g) => g.namespace === "*" && needed.some((c) => allows(g, c)))
    .filter((g) => needed.every((c) => !allows(g, c) || c.namespace !== undefined))
    .map((g) => `${show(g)} (only needed in one namespace)`);
  return [...unused, ...wider];
}

describe("the RBAC rules", () => {
  test("grant every call the manager and its controllers make", () => {
    const given = grants(baseRbac);
    expect(coreCalls.filter((c) => !given.some((g) => allows(g, c))).map(describeCall)).toEqual([]);
  });

  test("grant nothing those calls do not need, and use no wildcard", () => {
    expect(excess(grants(baseRbac), coreCalls)).toEqual([]);
    const rules = baseRbac.filter((d) => d.kind.endsWith("Role")).flatMap((r) => r.rules as Rule[]);
    for (const rule of rules)
      for (const list of [rule.verbs, rule.apiGroups ?? [], rule.resources ?? []]) expect(list).not.toContain("*");
  });

  test("leave to the built-in roles what every user may do", () => {
    const defaults = calls.filter((c) => c.defaultRole);
    expect(defaults.filter((c) => grants(baseRbac).some((g) => allows(g, c))).map(describeCall)).toEqual([]);
    const builtIn = ["system:basic-user", "system:public-info-viewer", "system:discovery"];
    for (const c of defaults) expect(builtIn).toContain(c.defaultRole as string);
  });

  test("grant each provider's own calls in its component, and only those", () => {
    const providers = new Set(calls.flatMap((c) => c.by.map(providerOf)).filter((p) => p !== undefined));
    const base = grants(baseRbac);
    for (const name of new Set([...providers, ...providerRbac.keys()])) {
      const needed = grantable.filter((c) => c.by.includes(`provider:${name}`) && !base.some((g) => allows(g, c)));
      const given = grants(providerRbac.get(name) ?? []);
      const uncovered = needed.filter((c) => !given.some((g) => allows(g, c))).map(describeCall);
      expect({ provider: name, uncovered, excess: excess(given, needed) }).toEqual({
        provider: name,
        uncovered: [],
        excess: [],
      });
    }
  });
});

/** Non-test TypeScript the executables are made of, with who its calls belong to. */
async function sources(): Promise<{ path: string; owner: string | undefined; text: string }[]> {
  const out: { path: string; owner: string | undefined; text: string }[] = [];
  for (const dir of ["cmd", "controllers", "platform", "kube", "providers"]) {
    for (const entry of await readdir(join(ROOT, dir), { recursive: true, withFileTypes: true })) {
      const path = relative(ROOT, join(entry.parentPath, entry.name));
      if (!entry.isFile() || !path.endsWith(".ts") || /\.test\.ts$|testdata|testing|harness|fixtures/.test(path))
        continue;
      // The sandbox command runs its own API server; the fake provider is for tests.
      if (path === "cmd/sandbox.ts" || path.startsWith("providers/fake/")) continue;
      const provider = /^providers\/([^/]+)\//.exec(path)?.[1];
      out.push({
        path,
        owner: provider ? `provider:${provider}` : undefined,
        text: await readFile(join(ROOT, path), "utf8"),
      });
    }
  }
  return out;
}

const PROVIDER_INFORMERS = "providers/runtime.ts";

const HOW_TO_FIX =
  "add the call to deploy/kubernetes/api-calls.json (a provider's with by: provider:<name>) and grant it in " +
  "deploy/kubernetes/base/rbac.yaml (a provider's in deploy/kubernetes/providers/<name>/rbac.yaml, a kustomize Component)";

describe("api-calls.json", () => {
  const refs = Resources as Record<string, { group: string; plural: string }>;
  const listed = (verb: string, ref: { group: string; plural: string }, owner: string | undefined) =>
    calls.some(
      (c) =>
        c.verb === verb &&
        (c.group ?? "") === ref.group &&
        c.resource === ref.plural &&
        (owner === undefined || c.by.includes(owner)),
    );

  test("lists every client call the code makes, by verb and resource", async () => {
    const missing: string[] = [];
    for (const { path, owner, text } of await sources()) {
      const need = (verb: string, key: string) => {
        const ref = refs[key];
        if (ref && !listed(verb, ref, owner))
          missing.push(`${path}: ${verb} ${ref.plural}${owner ? ` by ${owner}` : ""}`);
      };
      for (const [, verb, key] of text.matchAll(
        /\.(get|list|watch|create|update|patch|delete)(?:<[^>]*>)?\(\s*Resources\.(\w+)/g,
      ))
        need(verb as string, key as string);
      for (const [, key] of text.matchAll(/forResource(?:<[^>]*>)?\(\s*Resources\.(\w+)/g)) {
        // The provider runtime opens ConfigMap and Secret informers on a provider's behalf: the need is the
        // provider's, found at its `informers.configMaps(…)` call below, not the framework's.
        if (path === PROVIDER_INFORMERS && (key === "configMaps" || key === "secrets")) continue;
        need("list", key as string);
        need("watch", key as string);
      }
      for (const [, key] of text.matchAll(/informers\.(configMaps|secrets)\(/g)) {
        need("list", key as string);
        need("watch", key as string);
      }
      for (const [, method, url] of text.matchAll(/\.raw\(\s*"(\w+)",\s*"([^"]+)"/g))
        if (!calls.some((c) => c.nonResourceURL === url && c.verb === method?.toLowerCase()))
          missing.push(`${path}: ${url}`);
    }
    expect(missing, HOW_TO_FIX).toEqual([]);
  });

  test("names every resource the code refers to", async () => {
    const missing: string[] = [];
    for (const { path, text } of await sources()) {
      // The table itself, and the runtime that opens informers on a provider's behalf (checked at the provider).
      if (path === "kube/client-types.ts" || path === PROVIDER_INFORMERS) continue;
      for (const [, key] of text.matchAll(/Resources\.(\w+)/g)) {
        const ref = refs[key as string];
        if (ref && !calls.some((c) => (c.group ?? "") === ref.group && c.resource === ref.plural))
          missing.push(`${path}: ${ref.plural}`);
      }
    }
    expect([...new Set(missing)], HOW_TO_FIX).toEqual([]);
  });

  test("asks for what controllers/permissions.ts asks doctor to check, and no more", () => {
    const leader = { enabled: true, namespace: "kube-system", name: "cloud-controller-manager" };
    const wanted = requiredAccess(
      ["cloud-node-controller", "cloud-node-lifecycle-controller", "service-lb-controller", "node-route-controller"],
      leader,
    );
    const key = (p: Target & { verb: string; namespace?: string | undefined }) =>
      `${p.verb} ${callTarget(p)}${p.namespace ? ` in ${p.namespace}` : ""}`;
    const fromCalls = new Set(coreCalls.filter((c) => !c.nonResourceURL).map(key));
    const fromPermissions = new Set(wanted.map(key));
    const onlyPermissions = [...fromPermissions].filter((k) => !fromCalls.has(k));
    const onlyCalls = [...fromCalls].filter((k) => !fromPermissions.has(k));
    // controllers/permissions.ts reads api-calls.json, so nothing may differ.
    expect({ onlyPermissions, onlyCalls }).toEqual({ onlyPermissions: [], onlyCalls: [] });
  });
});

/**
 * Keystone v3's token issue (Identity API v3, `POST /v3/auth/tokens`): the `password`, `application_credential`
 * and `token` methods, project scope by ID or by name and domain, trust scope (`OS-TRUST:trust`), and the answer
 * — 201, the token in `X-Subject-Token`, its body with `expires_at`, `issued_at` and the service catalog. A refused
 * identity is 401; a malformed body 400; an application credential asking for a scope 401, as Keystone answers.
 */
import * as v from "valibot";
import { OsError } from "./errors.ts";
import { type Call, type Endpoint, json } from "./server.ts";
import { DEFAULT_DOMAIN, type Project, type User, type World } from "./state.ts";

const domainRef = v.union([v.object({ id: v.string() }), v.object({ name: v.string() })]);
const userRef = v.union([
  v.object({ id: v.string(), password: v.optional(v.string()) }),
  v.object({ name: v.string(), domain: domainRef, password: v.optional(v.string()) }),
]);

const authBody = v.object({
  auth: v.object({
    identity: v.object({
      methods: v.pipe(v.array(v.picklist(["password", "token", "application_credential"])), v.minLength(1)),
      password: v.optional(v.object({ user: userRef })),
      token: v.optional(v.object({ id: v.string() })),
      application_credential: v.optional(
        v.object({
          id: v.optional(v.string()),
          name: v.optional(v.string()),
          user: v.optional(userRef),
          secret: v.string(),
        }),
      ),
    }),
    scope: v.optional(
      v.object({
        project: v.optional(v.union([v.object({ id: v.string() }), v.object({ name: v.string(), domain: domainRef })])),
        "OS-TRUST:trust": v.optional(v.object({ id: v.string() })),
      }),
    ),
  }),
});

const refused = () => new OsError(401, "The request you have made requires authentication.");

function domainID(ref: v.InferOutput<typeof domainRef>): string {
  return "id" in ref ? ref.id : ref.name.toLowerCase() === "default" ? DEFAULT_DOMAIN : `unknown:${ref.name}`;
}

function findUser(world: World, ref: v.InferOutput<typeof userRef>): User | undefined {
  if ("id" in ref) return world.users.get(ref.id);
  const domain = domainID(ref.domain);
  return [...world.users.values()].find((u) => u.name === ref.name && u.domainID === domain);
}

/** Microseconds, as Keystone writes its times: `2026-01-01T00:00:00.000000Z`. */
export const keystoneTime = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

async function issueToken(call: Call): Promise<Response> {
  const parsed = v.safeParse(authBody, await call.body());
  if (!parsed.success) {
    throw new OsError(400, `Invalid input for field 'auth': ${parsed.issues[0]?.message ?? "malformed"}`);
  }
  const { identity, scope } = parsed.output.auth;
  const world = call.world;
  let user: User | undefined;
  let credentialProject: string | undefined;
  let credential: { id: string; name: string } | undefined;
  const method = identity.methods[0];
  if (method === "password") {
    const ref = identity.password?.user;
    user = ref && findUser(world, ref);
    if (!user || user.password !== ref?.password) throw refused();
  } else if (method === "token") {
    const live = world.liveToken(identity.token?.id ?? null);
    if (!live) throw new OsError(404, `Could not find token: ${identity.token?.id ?? ""}.`);
    user = world.users.get(live.userID);
  } else {
    const ac = identity.application_credential;
    const owner = ac?.user && findUser(world, ac.user);
    const found = ac?.id
      ? world.appCredentials.get(ac.id)
      : [...world.appCredentials.values()].find((c) => c.name === ac?.name && c.userID === owner?.id);
    if (!found || found.secret !== ac?.secret) throw refused();
    if (scope) throw new OsError(401, "Application credentials cannot request a scope.");
    user = world.users.get(found.userID);
    credentialProject = found.projectID;
    credential = { id: found.id, name: found.name };
  }
  if (!user) throw refused();

  let project: Project | undefined;
  let trust: string | undefined;
  if (credentialProject) project = world.projects.get(credentialProject);
  else if (scope?.["OS-TRUST:trust"]) {
    const t = world.trusts.get(scope["OS-TRUST:trust"].id);
    if (!t || t.trusteeUserID !== user.id) throw new OsError(401, "The trust is not for this user.");
    project = world.projects.get(t.projectID);
    trust = t.id;
  } else if (scope?.project) {
    const p = scope.project;
    project =
      "id" in p
        ? world.projects.get(p.id)
        : [...world.projects.values()].find((x) => x.name === p.name && x.domainID === domainID(p.domain));
    if (!project) throw refused();
  }

  const now = world.now();
  const value = world.tokenValue();
  world.tokens.set(value, {
    userID: user.id,
    projectID: project?.id ?? "",
    methods: identity.methods,
    issuedAt: now,
    expiresAt: now + world.tokenLifetimeMs,
  });
  const domain = { id: DEFAULT_DOMAIN, name: "Default" };
  const token = {
    methods: identity.methods,
    user: { domain, id: user.id, name: user.name, password_expires_at: null },
    audit_ids: [world.uuid().slice(0, 22)],
    expires_at: keystoneTime(now + world.tokenLifetimeMs),
    issued_at: keystoneTime(now),
    ...(project && {
      project: { domain, id: project.id, name: project.name },
      is_domain: false,
      roles: [{ id: "member-role", name: "member" }],
      catalog: catalogOf(call),
    }),
    ...(credential && { application_credential: { ...credential, restricted: true } }),
    ...(trust && { "OS-TRUST:trust": { id: trust, impersonation: false, trustee_user: { id: user.id } } }),
  };
  return json({ token }, 201, { "x-subject-token": value });
}

/** Keystone, Nova, Neutron and Octavia, each with a public and an internal endpoint in the emulator's region. */
export function catalogOf(call: Call): unknown[] {
  const region = call.emulator.region;
  const entry = (type: string, name: string, url: string) => ({
    id: `${name}-service`,
    type,
    name,
    endpoints: ["public", "internal"].map((iface) => ({
      id: `${name}-${iface}`,
      interface: iface,
      region,
      region_id: region,
      url,
    })),
  });
  return [
    entry("identity", "keystone", `${call.base}/identity`),
    entry("compute", "nova", `${call.base}/compute/v2.1`),
    entry("network", "neutron", `${call.base}/networking`),
    ...(call.emulator.octavia ? [entry("load-balancer", "octavia", `${call.base}/load-balancer`)] : []),
  ];
}

export const keystoneEndpoints: readonly Endpoint[] = [
  { service: "identity", method: "POST", route: "/identity/v3/auth/tokens", anonymous: true, handle: issueToken },
];

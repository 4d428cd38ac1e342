/**
 * Leader migration (upstream: k8s.io/controller-manager pkg/leadermigration): the controllers named in a
 * `LeaderMigrationConfiguration` run under a second lease, the migration lock, which this manager and another one
 * (a kube-controller-manager still running cloud loops, a Go cloud-controller-manager) contend for; the others run
 * under the main lock as usual. Whichever manager holds the migration lock runs the migrated controllers, so they
 * never run in two managers at once and hand over with the lease.
 *
 * This file holds the configuration (its schema, upstream's default) and the filter, both pure.
 */
import * as v from "valibot";
import { ConfigError } from "../config/errors.ts";
import { dns1123Subdomain } from "../config/kube-names.ts";
import { issuesOf, rejectMisreadYaml } from "../config/validate.ts";

/** The API group of the configuration's kind; upstream decodes v1alpha1, v1beta1 and v1. */
export const LEADER_MIGRATION_GROUP = "controllermanager.config.k8s.io";
export const LEADER_MIGRATION_KIND = "LeaderMigrationConfiguration";
/** The component name this manager matches `controllerLeaders[].component` against (upstream's literal). */
export const CLOUD_CONTROLLER_MANAGER_COMPONENT = "cloud-controller-manager";

export interface ControllerLeader {
  /** The controller's canonical name, matched exactly, as upstream matches it (no alias). */
  readonly name: string;
  /** The component that runs it, or `*` for whichever participant holds the migration lock. */
  readonly component: string;
}

export interface LeaderMigrationConfig {
  /** The migration lock's Lease name (in `--leader-elect-resource-namespace`). */
  readonly leaderName: string;
  /** Only `leases` here (v1 always means it). */
  readonly resourceLock: "leases";
  readonly controllerLeaders: readonly ControllerLeader[];
}

/**
 * Upstream's default (pkg/leadermigration/config `DefaultLeaderMigrationConfiguration`), used when
 * `--leader-migration-config` is empty. Its names predate the controllers' renaming: of the three only
 * `cloud-node-lifecycle-controller` names a controller of today (here and in upstream's managers, which match names
 * exactly), so `service-lb-controller` and `node-route-controller` stay under the main lock. Kept as upstream's, so
 * that both managers of a migration read the same default the same way.
 */
export const DEFAULT_LEADER_MIGRATION_CONFIG: LeaderMigrationConfig = {
  leaderName: "cloud-provider-extraction-migration",
  resourceLock: "leases",
  controllerLeaders: [
    { name: "route-controller", component: "*" },
    { name: "service-controller", component: "*" },
    { name: "cloud-node-lifecycle-controller", component: "*" },
  ],
};

/** What the manager does with a controller under leader migration (upstream: `FilterResult`). */
export type MigrationRole =
  /** Listed for this component (or `*`): run it under the migration lock. */
  | "migrated"
  /** Not listed: run it under the main lock. */
  | "non-migrated"
  /** Listed for another component: that one runs it; never start it here. */
  | "unowned";

/**
 * Upstream's `NewLeaderMigrator` filter. A controller listed twice takes its last entry, as upstream's map does.
 */
export function migrationFilter(
  config: LeaderMigrationConfig,
  component: string = CLOUD_CONTROLLER_MANAGER_COMPONENT,
): (controller: string) => MigrationRole {
  const listed = new Map<string, boolean>();
  for (const leader of config.controllerLeaders) {
    listed.set(leader.name, leader.component === component || leader.component === "*");
  }
  return (controller) => {
    const mine = listed.get(controller);
    if (mine === undefined) return "non-migrated";
    return mine ? "migrated" : "unowned";
  };
}

const nonEmpty = (what: string) => v.pipe(v.string(`${what} must be a string`), v.minLength(1, `${what} is required`));

const leaderName = v.pipe(
  v.string("must be a string"),
  v.minLength(1, "leaderName must be set for LeaderMigrationConfiguration"),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed || dataset.value === "") return;
    const problems = dns1123Subdomain(dataset.value);
    if (problems.length > 0) addIssue({ message: `is not a valid Lease name: ${problems.join("; ")}` });
  }),
);

const controllerLeaders = v.optional(
  v.array(
    v.strictObject({ name: nonEmpty("name"), component: nonEmpty("component") }),
    "must be a list of {name, component}",
  ),
  [],
);

const resourceLock = v.pipe(
  v.string("must be a string"),
  v.check(
    (s) => s === "leases",
    (i) =>
      i.input === "endpoints"
        ? `"endpoints" locks are not supported (Kubernetes dropped them in 1.30); use "leases"`
        : `must be "leases", got ${JSON.stringify(i.input)}`,
  ),
);

const kind = v.literal(LEADER_MIGRATION_KIND, `must be ${LEADER_MIGRATION_KIND}`);

const Schema = v.variant(
  "apiVersion",
  [
    // v1 has no resourceLock: it always means leases (upstream: config/v1 conversion).
    v.strictObject({
      apiVersion: v.literal(`${LEADER_MIGRATION_GROUP}/v1`),
      kind,
      leaderName,
      controllerLeaders,
    }),
    v.strictObject({
      apiVersion: v.picklist([`${LEADER_MIGRATION_GROUP}/v1beta1`, `${LEADER_MIGRATION_GROUP}/v1alpha1`]),
      kind,
      leaderName,
      resourceLock,
      controllerLeaders,
    }),
  ],
  // The variant hands over the discriminator's value.
  (i) => `must be ${LEADER_MIGRATION_GROUP}/v1 (or v1beta1, v1alpha1), got ${JSON.stringify(i.input ?? null)}`,
);

/**
 * Reads a `LeaderMigrationConfiguration` from YAML or JSON text, every problem at once as a `ConfigError` naming its
 * field (`source` names the file). Unknown fields are refused, as upstream's strict decoding refuses them.
 */
export function parseLeaderMigrationConfig(text: string, source: string): LeaderMigrationConfig {
  rejectMisreadYaml(text, source);
  let raw: unknown;
  try {
    raw = Bun.YAML.parse(text);
  } catch (err) {
    throw new ConfigError(source, [{ path: "", message: `is not YAML or JSON: ${(err as Error).message}` }], {
      cause: err,
    });
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new ConfigError(source, [{ path: "", message: `must be a ${LEADER_MIGRATION_KIND} object` }]);
  }
  const result = v.safeParse(Schema, raw, { abortEarly: false });
  if (!result.success) throw new ConfigError(source, issuesOf(result.issues));
  const out = result.output;
  return {
    leaderName: out.leaderName,
    resourceLock: "leases",
    controllerLeaders: out.controllerLeaders.map(({ name, component }) => ({ name, component })),
  };
}

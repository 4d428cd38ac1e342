/**
 * `--enable-leader-migration` and `--leader-migration-config` at the command's edge (upstream:
 * pkg/leadermigration/options `ApplyTo`, and `leadermigration.Enabled`): the configuration read and checked before
 * anything starts, and which lock each controller runs under, for the manager.
 */
import { readFileSync } from "node:fs";
import { CONTROLLERS, type ControllerName, canonicalControllerName } from "../controllers/names.ts";
import { requiredAccess } from "../controllers/permissions.ts";
import {
  DEFAULT_LEADER_MIGRATION_CONFIG,
  type LeaderMigrationConfig,
  type MigrationRole,
  migrationFilter,
  parseLeaderMigrationConfig,
} from "../platform/leader-migration.ts";

export interface LeaderMigrationFlags {
  readonly leaderElection: { readonly enabled: boolean; readonly name: string };
  readonly leaderMigration: { readonly enabled: boolean; readonly configFile: string };
}

export type LeaderMigrationLoad =
  | { readonly ok: true; readonly config: LeaderMigrationConfig | undefined; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly problem: string };

/** Upstream's names of before the renaming, which a configuration written for them may still carry. */
const RENAMED: Readonly<Record<string, ControllerName>> = {
  "service-controller": "service-lb-controller",
  "route-controller": "node-route-controller",
  "cloud-node-lifecycle": "cloud-node-lifecycle-controller",
};

/**
 * The migration configuration in effect: `undefined` when migration is off, or on without leader election (upstream
 * runs no migration lock then; a warning says so). A file that cannot be read or is invalid is a problem naming
 * `--leader-migration-config` and each field; `controllerLeaders` names that no controller of this manager carries
 * are warnings (another component may run them), with the name meant when it is an alias or an old name.
 */
export function loadLeaderMigration(
  o: LeaderMigrationFlags,
  readFile: (path: string) => string = (path) => readFileSync(path, "utf8"),
): LeaderMigrationLoad {
  if (!o.leaderMigration.enabled) return { ok: true, config: undefined, warnings: [] };
  if (!o.leaderElection.enabled) {
    return {
      ok: true,
      config: undefined,
      warnings: ["--enable-leader-migration has no effect with --leader-elect=false: there is no lock to migrate"],
    };
  }
  const file = o.leaderMigration.configFile;
  let config = DEFAULT_LEADER_MIGRATION_CONFIG;
  if (file !== "") {
    let text: string;
    try {
      text = readFile(file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      return {
        ok: false,
        problem: `--leader-migration-config "${file}" cannot be read (${code ?? (err as Error).message}): pass the path of a LeaderMigrationConfiguration file, or leave the flag out for the default`,
      };
    }
    try {
      config = parseLeaderMigrationConfig(text, `--leader-migration-config "${file}"`);
    } catch (err) {
      return { ok: false, problem: (err as Error).message };
    }
  }
  if (config.leaderName === o.leaderElection.name) {
    return {
      ok: false,
      problem: `--leader-migration-config: leaderName "${config.leaderName}" is the main lock's name (--leader-elect-resource-name); the migration lock needs a Lease of its own`,
    };
  }
  const warnings: string[] = [];
  for (const { name } of config.controllerLeaders) {
    if (CONTROLLERS.some((c) => c.name === name)) continue;
    const meant = canonicalControllerName(name) ?? RENAMED[name];
    warnings.push(
      meant
        ? `leader migration: controllerLeaders names "${name}", which matches no controller (names are matched exactly, as upstream's managers match them); this manager's is "${meant}", and it stays under the main lock`
        : `leader migration: controllerLeaders names "${name}", which is not a controller of this manager (another component may run it)`,
    );
  }
  return { ok: true, config, warnings };
}

/**
 * What the migration lock needs beyond the main lock's permissions (`get`, `update`, `watch` on its Lease), for
 * `doctor`: none without migration in effect. `create` on Leases, with no name, is the main lock's already.
 */
export function migrationLeaseAccess(
  config: LeaderMigrationConfig | undefined,
  namespace: string,
): ReturnType<typeof requiredAccess> {
  if (!config) return [];
  return requiredAccess([], { enabled: true, namespace, name: config.leaderName }).filter(
    (a) => a.resource === "leases" && a.name === config.leaderName,
  );
}

/** Each controller's lock under `config`, in start order. */
export function controllerRoles(config: LeaderMigrationConfig): { name: ControllerName; role: MigrationRole }[] {
  const role = migrationFilter(config);
  return CONTROLLERS.map(({ name }) => ({ name, role: role(name) }));
}

/** One line for the log: which controllers run under which lock, and which are left to the other component. */
export function describeRoles(
  roles: readonly { name: ControllerName; role: MigrationRole }[],
  namespace: string,
  mainLock: string,
  migrationLock: string,
): string {
  const of = (role: MigrationRole) =>
    roles
      .filter((r) => r.role === role)
      .map((r) => r.name)
      .join(", ") || "none";
  return `main lock ${namespace}/${mainLock} runs ${of("non-migrated")}; migration lock ${namespace}/${migrationLock} runs ${of("migrated")}; left to another component: ${of("unowned")}`;
}

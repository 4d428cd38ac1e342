import { describe, expect, test } from "bun:test";
import { DEFAULT_LEADER_MIGRATION_CONFIG } from "../platform/leader-migration.ts";
import {
  controllerRoles,
  describeRoles,
  type LeaderMigrationFlags,
  loadLeaderMigration,
  migrationLeaseAccess,
} from "./leader-migration.ts";

const flags = (
  migration: Partial<LeaderMigrationFlags["leaderMigration"]> = {},
  leaderElect = true,
): LeaderMigrationFlags => ({
  leaderElection: { enabled: leaderElect, name: "cloud-controller-manager" },
  leaderMigration: { enabled: true, configFile: "", ...migration },
});

const file = (text: string) => (path: string) => {
  if (path !== "/etc/lm.yaml") throw Object.assign(new Error("no such file"), { code: "ENOENT" });
  return text;
};

const v1 = (leaderName: string, ...leaders: string[]) =>
  `kind: LeaderMigrationConfiguration
apiVersion: controllermanager.config.k8s.io/v1
leaderName: ${leaderName}
controllerLeaders:
${leaders.map((l) => `  - { name: ${l}, component: "*" }`).join("\n")}
`;

describe("loadLeaderMigration", () => {
  test("is off without --enable-leader-migration", () => {
    expect(loadLeaderMigration(flags({ enabled: false }))).toEqual({ ok: true, config: undefined, warnings: [] });
  });

  test("is off, with a warning, without leader election, as upstream's Enabled", () => {
    const got = loadLeaderMigration(flags({}, false));
    expect(got).toEqual({
      ok: true,
      config: undefined,
      warnings: ["--enable-leader-migration has no effect with --leader-elect=false: there is no lock to migrate"],
    });
  });

  test("takes upstream's default without a file, warning of its two names that match no controller", () => {
    const got = loadLeaderMigration(flags());
    expect(got.ok && got.config).toEqual(DEFAULT_LEADER_MIGRATION_CONFIG);
    expect(got.ok && got.warnings).toEqual([
      'leader migration: controllerLeaders names "route-controller", which matches no controller (names are matched exactly, as upstream\'s managers match them); this manager\'s is "node-route-controller", and it stays under the main lock',
      'leader migration: controllerLeaders names "service-controller", which matches no controller (names are matched exactly, as upstream\'s managers match them); this manager\'s is "service-lb-controller", and it stays under the main lock',
    ]);
  });

  test("reads the file, warning of an alias and of a controller this manager does not have", () => {
    const got = loadLeaderMigration(
      flags({ configFile: "/etc/lm.yaml" }),
      file(v1("m", "service-lb-controller", "service", "ttl-controller")),
    );
    expect(got.ok && got.config?.controllerLeaders.map((c) => c.name)).toEqual([
      "service-lb-controller",
      "service",
      "ttl-controller",
    ]);
    const warnings = got.ok ? got.warnings : [];
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('names "service", which matches no controller');
    expect(warnings[0]).toContain('this manager\'s is "service-lb-controller"');
    expect(warnings[1]).toContain('names "ttl-controller", which is not a controller of this manager');
  });

  const refused: { name: string; flags: LeaderMigrationFlags; text: string; problem: string }[] = [
    {
      name: "refuses a file that cannot be read, naming the flag and the fix",
      flags: flags({ configFile: "/etc/other.yaml" }),
      text: "",
      problem:
        '--leader-migration-config "/etc/other.yaml" cannot be read (ENOENT): pass the path of a LeaderMigrationConfiguration file, or leave the flag out for the default',
    },
    {
      name: "refuses an invalid file, naming the flag and the field",
      flags: flags({ configFile: "/etc/lm.yaml" }),
      text: "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\n",
      problem:
        '--leader-migration-config "/etc/lm.yaml" is invalid (1 problem):\n  - leaderName: is required but missing',
    },
    {
      name: "refuses a migration lock named as the main lock",
      flags: flags({ configFile: "/etc/lm.yaml" }),
      text: v1("cloud-controller-manager", "service-lb-controller"),
      problem:
        '--leader-migration-config: leaderName "cloud-controller-manager" is the main lock\'s name (--leader-elect-resource-name); the migration lock needs a Lease of its own',
    },
  ];
  for (const c of refused) {
    test(c.name, () => expect(loadLeaderMigration(c.flags, file(c.text))).toEqual({ ok: false, problem: c.problem }));
  }
});

test("the migration Lease needs get, update and watch by name; nothing without migration", () => {
  const access = migrationLeaseAccess(DEFAULT_LEADER_MIGRATION_CONFIG, "kube-system");
  expect(access.map((a) => `${a.verb} ${a.resource} ${a.namespace}/${a.name}`).sort()).toEqual([
    "get leases kube-system/cloud-provider-extraction-migration",
    "update leases kube-system/cloud-provider-extraction-migration",
    "watch leases kube-system/cloud-provider-extraction-migration",
  ]);
  expect(migrationLeaseAccess(undefined, "kube-system")).toEqual([]);
});

test("describeRoles names each lock's controllers and those left to another component", () => {
  const roles = controllerRoles({
    leaderName: "m",
    resourceLock: "leases",
    controllerLeaders: [
      { name: "service-lb-controller", component: "cloud-controller-manager" },
      { name: "node-route-controller", component: "kube-controller-manager" },
    ],
  });
  expect(describeRoles(roles, "kube-system", "cloud-controller-manager", "m")).toBe(
    "main lock kube-system/cloud-controller-manager runs cloud-node-controller, cloud-node-lifecycle-controller, node-ipam-controller; migration lock kube-system/m runs service-lb-controller; left to another component: node-route-controller",
  );
});

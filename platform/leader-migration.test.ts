import { describe, expect, test } from "bun:test";
import { ConfigError } from "../config/errors.ts";
import {
  DEFAULT_LEADER_MIGRATION_CONFIG,
  type LeaderMigrationConfig,
  type MigrationRole,
  migrationFilter,
  parseLeaderMigrationConfig,
} from "./leader-migration.ts";

const config = (...controllerLeaders: { name: string; component: string }[]): LeaderMigrationConfig => ({
  leaderName: "migration",
  resourceLock: "leases",
  controllerLeaders,
});

describe("migrationFilter", () => {
  const cases: { name: string; config: LeaderMigrationConfig; controller: string; role: MigrationRole }[] = [
    {
      name: "runs a controller listed for this component under the migration lock",
      config: config({ name: "service-lb-controller", component: "cloud-controller-manager" }),
      controller: "service-lb-controller",
      role: "migrated",
    },
    {
      name: "runs a controller listed for any component (*) under the migration lock",
      config: config({ name: "node-route-controller", component: "*" }),
      controller: "node-route-controller",
      role: "migrated",
    },
    {
      name: "leaves a controller listed for another component to that component",
      config: config({ name: "service-lb-controller", component: "kube-controller-manager" }),
      controller: "service-lb-controller",
      role: "unowned",
    },
    {
      name: "runs a controller that is not listed under the main lock",
      config: config({ name: "service-lb-controller", component: "*" }),
      controller: "cloud-node-controller",
      role: "non-migrated",
    },
    {
      name: "matches names exactly, as upstream: an alias is not the controller",
      config: config({ name: "service", component: "*" }),
      controller: "service-lb-controller",
      role: "non-migrated",
    },
    {
      name: "takes the last entry of a controller listed twice",
      config: config(
        { name: "service-lb-controller", component: "*" },
        { name: "service-lb-controller", component: "kube-controller-manager" },
      ),
      controller: "service-lb-controller",
      role: "unowned",
    },
  ];
  for (const c of cases) {
    test(c.name, () => expect(migrationFilter(c.config)(c.controller)).toBe(c.role));
  }

  test("the default configuration migrates only cloud-node-lifecycle-controller of today's names", () => {
    const role = migrationFilter(DEFAULT_LEADER_MIGRATION_CONFIG);
    expect(
      [
        "cloud-node-controller",
        "cloud-node-lifecycle-controller",
        "service-lb-controller",
        "node-route-controller",
      ].map(role),
    ).toEqual(["non-migrated", "migrated", "non-migrated", "non-migrated"]);
  });

  test("matches the component given, for the other side of a migration", () => {
    const c = config({ name: "service-lb-controller", component: "kube-controller-manager" });
    expect(migrationFilter(c, "kube-controller-manager")("service-lb-controller")).toBe("migrated");
  });
});

describe("parseLeaderMigrationConfig", () => {
  const accepted: { name: string; text: string; want: LeaderMigrationConfig }[] = [
    {
      name: "reads v1 YAML, whose lock is always leases",
      text: `
kind: LeaderMigrationConfiguration
apiVersion: controllermanager.config.k8s.io/v1
leaderName: cloud-provider-extraction-migration
controllerLeaders:
  - name: service-lb-controller
    component: cloud-controller-manager
`,
      want: {
        leaderName: "cloud-provider-extraction-migration",
        resourceLock: "leases",
        controllerLeaders: [{ name: "service-lb-controller", component: "cloud-controller-manager" }],
      },
    },
    {
      name: "reads v1beta1 with its resourceLock",
      text: `{"kind":"LeaderMigrationConfiguration","apiVersion":"controllermanager.config.k8s.io/v1beta1","leaderName":"m","resourceLock":"leases","controllerLeaders":[{"name":"a","component":"*"}]}`,
      want: { leaderName: "m", resourceLock: "leases", controllerLeaders: [{ name: "a", component: "*" }] },
    },
    {
      name: "reads v1alpha1 without controllerLeaders as migrating nothing",
      text: "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1alpha1\nleaderName: m\nresourceLock: leases\n",
      want: { leaderName: "m", resourceLock: "leases", controllerLeaders: [] },
    },
  ];
  for (const c of accepted) {
    test(c.name, () => expect(parseLeaderMigrationConfig(c.text, "f.yaml")).toEqual(c.want));
  }

  const head = "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1\n";
  const refused: { name: string; text: string; issues: string[] }[] = [
    {
      name: "refuses a missing leaderName with upstream's message",
      text: `${head}controllerLeaders: []\n`,
      issues: ["leaderName: is required but missing"],
    },
    {
      name: "refuses an empty leaderName with upstream's message",
      text: `${head}leaderName: ""\n`,
      issues: ["leaderName: leaderName must be set for LeaderMigrationConfiguration"],
    },
    {
      name: "refuses a leaderName that cannot name a Lease",
      text: `${head}leaderName: Not_A_Name\n`,
      issues: ["leaderName: is not a valid Lease name"],
    },
    {
      name: "refuses an entry without its component, naming the entry",
      text: `${head}leaderName: m\ncontrollerLeaders:\n  - name: service-lb-controller\n`,
      issues: ["controllerLeaders[0].component: is required but missing"],
    },
    {
      name: "refuses an unknown field, as upstream's strict decoding",
      text: `${head}leaderName: m\nresourceLock: leases\n`,
      issues: ["resourceLock: is not a known field"],
    },
    {
      name: "refuses an endpoints lock with the fix",
      text: "kind: LeaderMigrationConfiguration\napiVersion: controllermanager.config.k8s.io/v1beta1\nleaderName: m\nresourceLock: endpoints\n",
      issues: ['resourceLock: "endpoints" locks are not supported'],
    },
    {
      name: "refuses another apiVersion, naming the accepted ones",
      text: "kind: LeaderMigrationConfiguration\napiVersion: v1\nleaderName: m\n",
      issues: ['apiVersion: must be controllermanager.config.k8s.io/v1 (or v1beta1, v1alpha1), got "v1"'],
    },
    {
      name: "refuses another kind",
      text: "kind: ConfigMap\napiVersion: controllermanager.config.k8s.io/v1\nleaderName: m\n",
      issues: ["kind: must be LeaderMigrationConfiguration"],
    },
    {
      name: "refuses a key given twice",
      text: `${head}leaderName: a\nleaderName: b\n`,
      issues: ["leaderName: is given twice in one mapping"],
    },
    { name: "refuses a list at the top", text: "- a\n", issues: ["must be a LeaderMigrationConfiguration object"] },
  ];
  for (const c of refused) {
    test(c.name, () => {
      let caught: unknown;
      try {
        parseLeaderMigrationConfig(c.text, "f.yaml");
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      const issues = (caught as ConfigError).issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
      expect(issues).toHaveLength(c.issues.length);
      for (const [n, want] of c.issues.entries()) expect(issues[n]).toStartWith(want);
      expect((caught as Error).message).toStartWith("f.yaml is invalid");
    });
  }
});

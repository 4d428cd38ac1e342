/**
 * The provider components' Secrets are what the providers read: rendered with the Deployment, the placeholders
 * filled as a user fills them, the environment the workload takes from them and the cloud-config file it mounts
 * pass the provider's own settings reader, and left as placeholders they fail naming the setting.
 */
import { expect, test } from "bun:test";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { openStackSettings } from "../providers/openstack/provider.ts";
import { scalewaySettings } from "../providers/scaleway/provider.ts";
import { kustomize, noKubectl } from "./support/kustomize.ts";

const DIR = resolve(import.meta.dir, "..", "deploy", "kubernetes");
// biome-ignore lint/suspicious/noExplicitAny: manifests are read field by field
type Doc = any;

/** The workload's environment (env and envFrom Secrets) and the text of the file `--cloud-config` names. */
async function rendered(component: string, fill: (text: string) => string) {
  const overlay = await mkdtemp(join(tmpdir(), "ccm-overlay-settings-"));
  try {
    const rel = (p: string) => relative(overlay, join(DIR, p));
    await writeFile(
      join(overlay, "kustomization.yaml"),
      `resources: [${rel("deployment")}]\ncomponents: [${rel(`providers/${component}`)}]\n`,
    );
    const { code, stderr, docs } = kustomize(overlay);
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    const secret = (name: string): Record<string, string> =>
      docs.find((d: Doc) => d.kind === "Secret" && d.metadata.name === name)?.stringData ?? {};
    const pod = docs.find((d: Doc) => d.kind === "Deployment").spec.template.spec;
    const container = pod.containers[0];
    const env: Record<string, string> = {};
    for (const from of container.envFrom ?? []) {
      for (const [k, v] of Object.entries(secret(from.secretRef.name))) env[k] = fill(v);
    }
    const file = (container.args as string[]).find((a) => a.startsWith("--cloud-config="))?.slice(15) ?? "";
    const mount = container.volumeMounts.find((m: Doc) => file.startsWith(`${m.mountPath}/`));
    const volume = pod.volumes.find((v: Doc) => v.name === mount.name);
    const config = fill(secret(volume.secret.secretName)[file.slice(mount.mountPath.length + 1)] ?? "");
    return { env, config, file };
  } finally {
    await rm(overlay, { recursive: true, force: true });
  }
}

const readFile = async (path: string): Promise<string> => {
  throw new Error(`unexpected read of ${path}`);
};

test.skipIf(noKubectl !== undefined)(
  `scaleway: scaleway-secret's keys are scw CCM's variables, read once filled${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  async () => {
    const filled = { SCW_ACCESS_KEY: "SCWABCDEFGHIJ0123456", SCW_SECRET_KEY: "7363616c-6577-4179-8000-000000000001" };
    const projectID = "0e2b6d4c-1b2a-4c3d-8e5f-000000000002";
    const { env, config, file } = await rendered("scaleway", (v) => v);
    expect(Object.keys(env).sort()).toEqual([
      "SCW_ACCESS_KEY",
      "SCW_DEFAULT_PROJECT_ID",
      "SCW_DEFAULT_REGION",
      "SCW_DEFAULT_ZONE",
      "SCW_SECRET_KEY",
    ]);
    const input = { name: "scaleway", config, configSource: `--cloud-config=${file}`, readFile };
    await expect(Promise.resolve(scalewaySettings.read({ ...input, env }))).rejects.toThrow("SCW_SECRET_KEY");
    const { value } = await scalewaySettings.read({
      ...input,
      env: { ...env, ...filled, SCW_DEFAULT_PROJECT_ID: projectID },
    });
    expect(value).toMatchObject({ region: "fr-par", zone: "fr-par-1", projectID, accessKey: filled.SCW_ACCESS_KEY });
  },
);

test.skipIf(noKubectl !== undefined)(
  `openstack: the Secret cloud-config's cloud.conf at /etc/config is read once filled${noKubectl ? ` [skipped: ${noKubectl}]` : ""}`,
  async () => {
    const input = (config: string) => ({
      name: "openstack",
      config,
      configSource: "--cloud-config=/etc/config/cloud.conf",
      env: {},
      readFile,
    });
    const placeholders = await rendered("openstack", (v) => v);
    expect(placeholders.file).toBe("/etc/config/cloud.conf");
    const { config } = await rendered("openstack", (v) => v.replaceAll("CHANGE_ME", "0123456789abcdef"));
    const { value } = await openStackSettings.read(input(config));
    expect(JSON.stringify(value)).toContain("https://keystone.example.com:5000/v3");
    expect(JSON.stringify(value)).toContain("RegionOne");
  },
);

/**
 * The generated sections of each provider's documentation page, written by `npx bun scripts/gen-docs.ts` (entries of its
 * `GENERATED` map); a test fails when one is stale. `settings`: the settings reference its declaration carries
 * (`settings.reference`); `annotations`: the Service annotations it declares. A provider adds its page here.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { DigitalOceanAnnotations, DigitalOceanIDAnnotations } from "../providers/digitalocean/annotations.ts";
import { digitalocean } from "../providers/digitalocean/provider.ts";
import { HcloudAnnotations, HcloudReservedAnnotations } from "../providers/hcloud/annotations.ts";
import { hcloud } from "../providers/hcloud/provider.ts";
import type { Annotation } from "../providers/kit/annotations/declare.ts";
import { annotationTable, withGeneratedSection } from "../providers/kit/annotations/reference.ts";
import type { SettingDoc } from "../providers/kit/settings-reference.ts";
import { settingsTable } from "../providers/kit/settings-reference.ts";
import { MetalRecordAnnotations, MetalServiceAnnotations } from "../providers/metal/annotations.ts";
import { metal } from "../providers/metal/provider.ts";
import { OpenStackAnnotations } from "../providers/openstack/annotations.ts";
import { openstack } from "../providers/openstack/provider.ts";
import { proxmox } from "../providers/proxmox/provider.ts";
import { SandboxAnnotations } from "../providers/sandbox/annotations.ts";
import { ScalewayAnnotations } from "../providers/scaleway/annotations.ts";
import { scaleway } from "../providers/scaleway/provider.ts";

const ROOT = resolve(import.meta.dir, "..");

interface PageSections {
  readonly settings?: readonly SettingDoc[] | undefined;
  /** The settings table's first column: `variable` (the default) or `key`. */
  readonly heading?: string;
  readonly annotations?: readonly Annotation<unknown, unknown>[];
}

/** The page at `path` with each of its generated sections written anew. */
async function providerPage(path: string, sections: PageSections): Promise<string> {
  let page = await readFile(join(ROOT, path), "utf8");
  if (sections.settings)
    page = withGeneratedSection(page, "settings", settingsTable(sections.settings, sections.heading), path);
  if (sections.annotations) {
    page = withGeneratedSection(page, "annotations", annotationTable(sections.annotations), path);
  }
  return page;
}

export const PROVIDER_PAGES = {
  "docs/providers/digitalocean.md": () =>
    providerPage("docs/providers/digitalocean.md", {
      settings: digitalocean.settings.reference,
      annotations: [...DigitalOceanAnnotations.list, ...DigitalOceanIDAnnotations.list],
    }),
  "docs/providers/hcloud.md": () =>
    providerPage("docs/providers/hcloud.md", {
      settings: hcloud.settings.reference,
      annotations: [...HcloudAnnotations.list, ...HcloudReservedAnnotations.list],
    }),
  "docs/providers/openstack.md": () =>
    providerPage("docs/providers/openstack.md", {
      settings: openstack.settings.reference,
      heading: "key",
      annotations: OpenStackAnnotations.list,
    }),
  "docs/providers/proxmox.md": () =>
    providerPage("docs/providers/proxmox.md", { settings: proxmox.settings.reference, heading: "key" }),
  "docs/providers/metal.md": () =>
    providerPage("docs/providers/metal.md", {
      settings: metal.settings.reference,
      heading: "key",
      annotations: [...MetalServiceAnnotations.list, ...MetalRecordAnnotations.list],
    }),
  "docs/providers/scaleway.md": () =>
    providerPage("docs/providers/scaleway.md", {
      settings: scaleway.settings.reference,
      annotations: ScalewayAnnotations.list,
    }),
  "docs/sandbox.md": () => providerPage("docs/sandbox.md", { annotations: SandboxAnnotations.list }),
} as const;

/**
 * The annotation reference of each provider that declares annotations, generated into a marked section of its
 * documentation page by `bun scripts/gen-docs.ts` (entries of its `GENERATED` map); a test fails when it is stale.
 * A provider that declares annotations adds its page here.
 */
import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { HcloudAnnotations, HcloudReservedAnnotations } from "../providers/hcloud/annotations.ts";
import type { Annotation } from "../providers/kit/annotations/declare.ts";
import { annotationTable, withGeneratedSection } from "../providers/kit/annotations/reference.ts";
import { MetalRecordAnnotations, MetalServiceAnnotations } from "../providers/metal/annotations.ts";
import { SandboxAnnotations } from "../providers/sandbox/annotations.ts";

const ROOT = resolve(import.meta.dir, "..");

/** The page at `path` with its `annotations` section generated from `annotations`. */
async function annotationPage(path: string, annotations: readonly Annotation<unknown, unknown>[]): Promise<string> {
  const page = await readFile(join(ROOT, path), "utf8");
  return withGeneratedSection(page, "annotations", annotationTable(annotations), path);
}

export const ANNOTATION_PAGES = {
  "docs/providers/hcloud.md": () =>
    annotationPage("docs/providers/hcloud.md", [...HcloudAnnotations.list, ...HcloudReservedAnnotations.list]),
  "docs/providers/metal.md": () =>
    annotationPage("docs/providers/metal.md", [...MetalServiceAnnotations.list, ...MetalRecordAnnotations.list]),
  "docs/sandbox.md": () => annotationPage("docs/sandbox.md", SandboxAnnotations.list),
} as const;

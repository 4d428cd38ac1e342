/**
 * Upstream's own cloud-controller-manager (Kubernetes 1.20.2) with upstream's fake cloud, as the benchmark's peer
 * (docs/performance.md, "Side by side with upstream's Go CCM"). Built from the same Debian source package the
 * `test:real` tier builds its kube-apiserver from (scripts/real-apiserver/build.ts): `apt-get source kubernetes`,
 * Debian's golang-1.19, the vendored reflect2 swapped for Debian's 1.0.2. Nothing is fetched any other way and no
 * upstream source is kept in this repository: the tree lives in the cache, and the only Go written here is our own
 * small main (MAIN_GO below), placed in the tree at build time.
 *
 * The main registers `k8s.io/cloud-provider/fake` under the name `bench` with InstancesV2 answering fixed metadata
 * for every node (provider ID `fake://<node>`, a type, zone, region, an InternalIP and a Hostname) and its in-memory
 * load balancers answering one external IP, parses the command line *before* building the configuration (1.20's own
 * main does it after, ignoring --kubeconfig and the rest), and runs `app.Run` with upstream's default controllers.
 *
 * The binary lands in `$XDG_CACHE_HOME/ccm-upstream-ccm/<CACHE_KEY>/cloud-controller-manager`; a second call finds it.
 */
import { existsSync } from "node:fs";
import { copyFile, mkdir, readdir, rename, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { $ } from "bun";
import { aptInstall, type Log, runChecked } from "../../lib/apt.ts";
import { BUILD_PACKAGES, goBuildEnv, replaceReflect2 } from "../../real-apiserver/build.ts";

/** Names the cached build; change it when MAIN_GO or the way of building changes. */
export const CACHE_KEY = "ccm-1.20.2-fake-bench-2";
const MAIN_DIR = "cmd/ccm-fake-bench";

/** Our main: upstream's 1.20 CCM with the fake cloud answering fixed node metadata. */
const MAIN_GO = `// Written for the ccm-ts benchmark: upstream's 1.20 cloud-controller-manager with its fake cloud.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/spf13/pflag"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	cloudprovider "k8s.io/cloud-provider"
	"k8s.io/cloud-provider/app"
	"k8s.io/cloud-provider/fake"
	"k8s.io/cloud-provider/options"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/component-base/cli/globalflag"
	"k8s.io/component-base/logs"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
)

type benchCloud struct{ *fake.Cloud }

func (c *benchCloud) InstancesV2() (cloudprovider.InstancesV2, bool) { return c, true }
func (c *benchCloud) Instances() (cloudprovider.Instances, bool)     { return nil, false }
func (c *benchCloud) InstanceExists(context.Context, *v1.Node) (bool, error) {
	return true, nil
}
func (c *benchCloud) InstanceShutdown(context.Context, *v1.Node) (bool, error) {
	return false, nil
}
func (c *benchCloud) InstanceMetadata(_ context.Context, node *v1.Node) (*cloudprovider.InstanceMetadata, error) {
	return &cloudprovider.InstanceMetadata{
		ProviderID:   "fake://" + node.Name,
		InstanceType: "bench-1",
		NodeAddresses: []v1.NodeAddress{
			{Type: v1.NodeInternalIP, Address: "10.0.0.1"},
			{Type: v1.NodeHostName, Address: node.Name},
		},
		Zone:   "bench-zone",
		Region: "bench-region",
	}, nil
}

func main() {
	cloudprovider.RegisterCloudProvider("bench", func(_ io.Reader) (cloudprovider.Interface, error) {
		// Without an ExternalIP the fake's load balancers answer the ingress IP "<nil>", which the API refuses.
		return &benchCloud{&fake.Cloud{ExternalIP: net.ParseIP("192.0.2.10")}}, nil
	})
	s, err := options.NewCloudControllerManagerOptions()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	controllers := []string{"cloud-node", "cloud-node-lifecycle", "service", "route"}
	fs := pflag.NewFlagSet("cloud-controller-manager", pflag.ContinueOnError)
	fs.SetNormalizeFunc(cliflag.WordSepNormalizeFunc)
	named := s.Flags(controllers, app.ControllersDisabledByDefault.List())
	globalflag.AddGlobalFlags(named.FlagSet("global"), "cloud-controller-manager")
	for _, f := range named.FlagSets {
		fs.AddFlagSet(f)
	}
	if err := fs.Parse(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	logs.InitLogs()
	defer logs.FlushLogs()
	c, err := s.Config(controllers, app.ControllersDisabledByDefault.List())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cloud, err := cloudprovider.InitCloudProvider(s.KubeCloudShared.CloudProvider.Name, s.KubeCloudShared.CloudProvider.CloudConfigFile)
	if err != nil || cloud == nil {
		fmt.Fprintf(os.Stderr, "cloud provider could not be initialized: %v\\n", err)
		os.Exit(1)
	}
	cloud.Initialize(c.ClientBuilder, make(chan struct{}))
	completed := c.Complete()
	if err := app.Run(completed, app.DefaultControllerInitializers(completed, cloud), wait.NeverStop); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
`;

export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
  return join(base, "ccm-upstream-ccm", CACHE_KEY);
}

/** Path of upstream's CCM with the fake cloud, building it first when absent (minutes on two cores). */
export async function ensureUpstreamCcm(log: Log = () => {}): Promise<string> {
  const dir = cacheDir();
  const binary = join(dir, "cloud-controller-manager");
  if (existsSync(binary)) return binary;
  const started = performance.now();
  await aptInstall(BUILD_PACKAGES, log);
  const work = join(dir, "..", "src");
  await mkdir(work, { recursive: true });
  let tree = (await readdir(work, { withFileTypes: true })).find((e) => e.isDirectory());
  if (!tree) {
    log("apt-get source kubernetes (the deb-src entry of the test:real tier's build is needed)");
    await runChecked($`apt-get source -q kubernetes`.cwd(work), "apt-get source kubernetes");
    tree = (await readdir(work, { withFileTypes: true })).find((e) => e.isDirectory());
  }
  if (!tree) throw new Error(`apt-get source left no source tree in ${work}`);
  const root = join(work, tree.name);
  await replaceReflect2(root);
  await mkdir(join(root, MAIN_DIR), { recursive: true });
  await writeFile(join(root, MAIN_DIR, "main.go"), MAIN_GO);
  log(`building upstream's cloud-controller-manager with the fake cloud in ${root} (minutes on two cores)`);
  await runChecked($`nice -n 10 make WHAT=${MAIN_DIR}`.cwd(root).env(goBuildEnv()), `make WHAT=${MAIN_DIR}`);
  const built = join(root, "_output", "bin", "ccm-fake-bench");
  if (!existsSync(built)) throw new Error(`the build left no binary at ${built}`);
  await mkdir(dir, { recursive: true });
  await copyFile(built, `${binary}.tmp`);
  await $`chmod 0755 ${binary}.tmp`;
  await rename(`${binary}.tmp`, binary);
  log(`upstream CCM built in ${((performance.now() - started) / 1000).toFixed(0)}s: ${binary}`);
  return binary;
}

if (import.meta.main) {
  console.log(await ensureUpstreamCcm((line) => console.error(`upstream-ccm: ${line}`)));
}

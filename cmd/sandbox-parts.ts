/**
 * What `cloud-controller-manager sandbox` starts: the embedded API server, the simulated cloud, the real clouds'
 * emulators, the kubelets and the progress watch. `cmd/sandbox.ts` imports this module only when the command runs,
 * so the manager's process never evaluates the emulators' modules (about 760 KB of source in the all-in-one; idle
 * memory in docs/performance.md).
 */
export { startApiServer } from "../sandbox/apiserver/server.ts";
export { createMachines } from "../sandbox/cloud/fixtures.ts";
export { startSimulatedCloud } from "../sandbox/cloud/server.ts";
export { commandLine, startRealCloud } from "../sandbox/clouds.ts";
export { startKubelets } from "../sandbox/kubelets.ts";
export { watchProgress } from "../sandbox/progress.ts";

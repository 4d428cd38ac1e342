/** Each controller's start function, by canonical name; the manager starts them in the order of CONTROLLERS. */
import type { StartController } from "./context.ts";
import type { ControllerName } from "./names.ts";
import { startCloudNodeController } from "./node/controller.ts";
import { startNodeIpamController } from "./node-ipam/controller.ts";
import { startCloudNodeLifecycleController } from "./nodelifecycle/controller.ts";
import { startRouteController } from "./route/controller.ts";
import { startServiceController } from "./service/controller.ts";

export const STARTERS: Readonly<Record<ControllerName, StartController>> = {
  "cloud-node-controller": startCloudNodeController,
  "cloud-node-lifecycle-controller": startCloudNodeLifecycleController,
  "service-lb-controller": startServiceController,
  "node-route-controller": startRouteController,
  "node-ipam-controller": startNodeIpamController,
};

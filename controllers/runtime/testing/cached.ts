/**
 * What a controller reads from the informer cache: the object through its kind's keep-list (kube/trim.ts). Tests
 * that hand a controller's runner objects without an informer pass them through this, so a controller that reads a
 * field the cache drops fails its tests instead of a cluster.
 */
import type { ResourceRef } from "../../../kube/client-types.ts";
import { cacheTransform } from "../../../kube/informer.ts";
import type { KubeObject } from "../../../kube/objects.ts";

export function asCached<T extends KubeObject>(ref: ResourceRef, obj: T): T;
export function asCached<T extends KubeObject>(ref: ResourceRef, obj: T | undefined): T | undefined;
export function asCached<T extends KubeObject>(ref: ResourceRef, obj: T | undefined): T | undefined {
  return obj === undefined ? undefined : cacheTransform<T>(ref)(obj);
}

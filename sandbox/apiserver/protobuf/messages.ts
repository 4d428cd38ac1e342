/**
 * The protobuf messages the emulator decodes, by the `apiVersion/kind` the `runtime.Unknown` envelope names: the
 * kinds kubectl sends as protobuf (`kubectl create service|configmap|secret|namespace|deployment`, `kubectl auth
 * can-i|whoami`). The tables (field-types.ts explains them) are written from the `generated.proto` files of
 * k8s.io/api and k8s.io/apimachinery, the API's published wire contract; field numbers never change.
 */
import { Deployment, Scale } from "./apps-v1.ts";
import { SelfSubjectAccessReview, SelfSubjectReview, SubjectAccessReview, TokenReview } from "./auth-v1.ts";
import { ConfigMap, Namespace, Secret, Service } from "./core-v1.ts";
import type { Message } from "./field-types.ts";
import { DeleteOptions } from "./meta-v1.ts";

export const MESSAGES: ReadonlyMap<string, Message> = new Map([
  ["v1/Service", Service],
  ["v1/ConfigMap", ConfigMap],
  ["v1/Secret", Secret],
  ["v1/Namespace", Namespace],
  ["apps/v1/Deployment", Deployment],
  ["autoscaling/v1/Scale", Scale],
  ["authorization.k8s.io/v1/SelfSubjectAccessReview", SelfSubjectAccessReview],
  ["authorization.k8s.io/v1/SubjectAccessReview", SubjectAccessReview],
  ["authentication.k8s.io/v1/TokenReview", TokenReview],
  ["authentication.k8s.io/v1/SelfSubjectReview", SelfSubjectReview],
  ["v1/DeleteOptions", DeleteOptions],
  ["meta.k8s.io/v1/DeleteOptions", DeleteOptions],
]);

/**
 * k8s.io/api authorization/v1 and authentication/v1 reviews (from their generated.proto): `kubectl auth can-i`
 * sends a SelfSubjectAccessReview, `kubectl auth whoami` a SelfSubjectReview.
 */
import { type Message, message } from "./field-types.ts";
import { LabelSelectorRequirement, ObjectMeta } from "./meta-v1.ts";

const SelectorAttributes = (name: string, requirement: Message): Message =>
  message(name, { 1: ["rawSelector", "string"], 2: ["requirements", [requirement]] });

const ResourceAttributes = message("ResourceAttributes", {
  1: ["namespace", "string"],
  2: ["verb", "string"],
  3: ["group", "string"],
  4: ["version", "string"],
  5: ["resource", "string"],
  6: ["subresource", "string"],
  7: ["name", "string"],
  8: ["fieldSelector", SelectorAttributes("FieldSelectorAttributes", LabelSelectorRequirement)],
  9: ["labelSelector", SelectorAttributes("LabelSelectorAttributes", LabelSelectorRequirement)],
});

const NonResourceAttributes = message("NonResourceAttributes", { 1: ["path", "string"], 2: ["verb", "string"] });

const SubjectAccessReviewStatus = message("SubjectAccessReviewStatus", {
  1: ["allowed", "bool"],
  4: ["denied", "bool"],
  2: ["reason", "string"],
  3: ["evaluationError", "string"],
});

export const SelfSubjectAccessReview = message("SelfSubjectAccessReview", {
  1: ["metadata", ObjectMeta],
  2: [
    "spec",
    message("SelfSubjectAccessReviewSpec", {
      1: ["resourceAttributes", ResourceAttributes],
      2: ["nonResourceAttributes", NonResourceAttributes],
    }),
  ],
  3: ["status", SubjectAccessReviewStatus],
});

export const SubjectAccessReview = message("SubjectAccessReview", {
  1: ["metadata", ObjectMeta],
  2: [
    "spec",
    message("SubjectAccessReviewSpec", {
      1: ["resourceAttributes", ResourceAttributes],
      2: ["nonResourceAttributes", NonResourceAttributes],
      3: ["user", "string"],
      4: ["groups", "[string]"],
      5: ["extra", "unsupported"],
      6: ["uid", "string"],
    }),
  ],
  3: ["status", SubjectAccessReviewStatus],
});

const UserInfo = message("UserInfo", {
  1: ["username", "string"],
  2: ["uid", "string"],
  3: ["groups", "[string]"],
  4: ["extra", "unsupported"],
});

export const TokenReview = message("TokenReview", {
  1: ["metadata", ObjectMeta],
  2: ["spec", message("TokenReviewSpec", { 1: ["token", "string"], 2: ["audiences", "[string]"] })],
  3: [
    "status",
    message("TokenReviewStatus", {
      1: ["authenticated", "bool"],
      2: ["user", UserInfo],
      4: ["audiences", "[string]"],
      3: ["error", "string"],
    }),
  ],
});

export const SelfSubjectReview = message("SelfSubjectReview", {
  1: ["metadata", ObjectMeta],
  2: ["status", message("SelfSubjectReviewStatus", { 1: ["userInfo", UserInfo] })],
});

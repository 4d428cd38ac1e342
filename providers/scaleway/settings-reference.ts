/**
 * The scaleway provider's settings reference: scw CCM's environment variables, with their defaults and meanings,
 * generated into docs/providers/scaleway.md. A test keeps it equal to what config.ts reads.
 */
import type { SettingDoc } from "../kit/settings-reference.ts";

const lb = "load balancers: ";

export const scalewaySettingDocs: readonly SettingDoc[] = [
  {
    names: ["SCW_ACCESS_KEY"],
    default: "required",
    meaning: "the access key of the API key the manager uses (`SCW` and 17 capitals or digits)",
  },
  {
    names: ["SCW_SECRET_KEY"],
    default: "required",
    meaning:
      "the API key's secret key, a UUID, sent as `X-Auth-Token`. `SCW_SECRET_KEY_FILE` names a file that holds it instead. A refused key fails `doctor` and the start, naming this variable.",
  },
  {
    names: ["SCW_DEFAULT_REGION"],
    default: "required",
    meaning:
      "the region (`fr-par`, `nl-ams`, `pl-waw`): regional resources, and the zone `doctor` probes without a project",
  },
  {
    names: ["SCW_DEFAULT_ZONE"],
    default: "not set",
    meaning:
      "the zone (`fr-par-1`) a legacy provider ID `scaleway://<uuid>` is looked up in, as scw CCM does; unset, every Instance zone is tried. A zone outside the region is a warning at start.",
  },
  {
    names: ["SCW_DEFAULT_PROJECT_ID"],
    default: "not set",
    meaning: `the project: \`doctor\` and the start read it to prove the key can; ${lb}the project new ones are made in`,
  },
  {
    names: ["SCW_DEFAULT_ORGANIZATION_ID"],
    default: "not set",
    meaning: "accepted, as by scw CCM; checked to be a UUID",
  },
  {
    names: ["SCW_API_URL"],
    default: "`https://api.scaleway.com`",
    meaning: "the API's root URL (an emulator's, in tests)",
  },
  {
    names: ["PN_ID"],
    default: "not set",
    meaning:
      "a private network's ID: a Node's InternalIP is the IPAM address of the Instance's NIC on this network only (else of every NIC it has); load balancers are attached to it and target the Nodes' InternalIPs",
  },
  {
    names: ["LB_DEFAULT_TYPE"],
    default: "not set",
    meaning: `${lb}the type of new ones (\`LB-S\`, \`LB-GP-M\`); unset, \`lb-s\``,
  },
  {
    names: ["SCW_CCM_PREFIX"],
    default: "not set",
    meaning: `${lb}a prefix of their names, which are the prefix and the Service UID (at most 64 characters)`,
  },
  {
    names: ["SCW_CCM_TAGS", "SCW_CCM_TAGS_DELIMITER"],
    default: "not set; `,`",
    meaning: `${lb}tags put on every new one, split by the one-character delimiter (besides \`managed-by-scaleway-cloud-controller-manager\`)`,
  },
  {
    names: ["EXTRA_USER_AGENT"],
    default: "not set",
    meaning: "appended to the user agent of every API request (printable ASCII)",
  },
  {
    names: ["DISABLE_INTERFACES"],
    default: "not set",
    meaning:
      "a comma-separated list of `instances`, `loadbalancer`, `zones`: `instances` turns off the node controllers' cloud side (no `instancesV2`), `loadbalancer` the load balancers (no `loadBalancer`: LoadBalancer Services are left to another implementation); `zones` has nothing to turn off. Another value is an error.",
  },
  {
    names: ["DISABLE_TAGS_SYNC"],
    default: "not set",
    meaning:
      "any value: no tag sync. Syncing server tags to Node labels and taints is not part of this provider yet, so unset it is a warning at start.",
  },
];

/**
 * What API Priority and Fairness did during a scenario, read from kube-apiserver's own counters, and the priority
 * levels the "flow control says no" rows put the bench's user in.
 *
 * APF records its rejections in `apiserver_flowcontrol_rejected_requests_total{priorityLevel,flowSchema,reason}` and
 * answers them 429 through `apiserver_request_terminations_total{code="429"}`; on kube-apiserver 1.20 they never
 * reach `apiserver_request_total{code="429"}`, which stayed 0 while APF rejected a thousand requests. All three are
 * read; the first is the one a rejecting level moves.
 *
 * The levels (flowcontrol.apiserver.k8s.io/v1beta1, as 1.20 serves it): one share of the server's concurrency each,
 * about 3 seats of the default 600 against the suggested levels' shares, one rejecting what finds no free seat, one
 * queuing it; a FlowSchema sends every request of the user `ccm-bench` to one of them, ahead of the suggested schemas.
 */

/** The counters summed over every label set, as read once. */
export interface FlowControlCounts {
  /** `apiserver_flowcontrol_rejected_requests_total`. */
  readonly rejected: number;
  /** `apiserver_request_terminations_total{code="429"}`. */
  readonly terminated429: number;
  /** `apiserver_request_total{code="429"}`. */
  readonly requests429: number;
}

const sample = (line: string): number => Number(line.slice(line.lastIndexOf(" ") + 1));

/** The counts from kube-apiserver's `/metrics` text. */
export function parseFlowControlCounts(text: string): FlowControlCounts {
  let rejected = 0;
  let terminated429 = 0;
  let requests429 = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith("apiserver_flowcontrol_rejected_requests_total{")) rejected += sample(line);
    else if (line.startsWith("apiserver_request_terminations_total{") && line.includes('code="429"'))
      terminated429 += sample(line);
    else if (line.startsWith("apiserver_request_total{") && line.includes('code="429"')) requests429 += sample(line);
  }
  return { rejected, terminated429, requests429 };
}

/** What happened between two reads. */
export const countsSince = (before: FlowControlCounts, after: FlowControlCounts): FlowControlCounts => ({
  rejected: after.rejected - before.rejected,
  terminated429: after.terminated429 - before.terminated429,
  requests429: after.requests429 - before.requests429,
});

export const LEVEL_KINDS = ["rejecting", "queuing"] as const;
export type LevelKind = (typeof LEVEL_KINDS)[number];

const API = "/apis/flowcontrol.apiserver.k8s.io/v1beta1";
const NAME = "ccm-bench";

/** The one-share PriorityLevelConfiguration of `kind`. */
export function priorityLevel(kind: LevelKind): object {
  const limitResponse =
    kind === "rejecting"
      ? { type: "Reject" }
      : { type: "Queue", queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } };
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1",
    kind: "PriorityLevelConfiguration",
    metadata: { name: `${NAME}-${kind}` },
    spec: { type: "Limited", limited: { assuredConcurrencyShares: 1, limitResponse } },
  };
}

/** The FlowSchema sending every request of the user `user` to the level of `kind`, ahead of the suggested ones. */
export function flowSchema(kind: LevelKind, user: string): object {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1beta1",
    kind: "FlowSchema",
    metadata: { name: NAME },
    spec: {
      priorityLevelConfiguration: { name: `${NAME}-${kind}` },
      matchingPrecedence: 50,
      distinguisherMethod: { type: "ByUser" },
      rules: [
        {
          subjects: [{ kind: "User", user: { name: user } }],
          resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }],
          nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
        },
      ],
    },
  };
}

type Request = (method: string, path: string, body?: unknown) => Promise<Response>;

async function expectStatus(r: Response, ok: readonly number[], what: string): Promise<void> {
  if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${await r.text()}`);
}

/**
 * Puts `user` in a one-share level of `kind` (replacing the bench's earlier schema) and waits until the server
 * classifies it there: `levelOf` answers the `X-Kubernetes-PF-PriorityLevel-UID` of one of the user's requests.
 */
export async function enterLevel(
  request: Request,
  kind: LevelKind,
  user: string,
  levelOf: () => Promise<string | null>,
): Promise<void> {
  await clearLevels(request);
  const created = await request("POST", `${API}/prioritylevelconfigurations`, priorityLevel(kind));
  await expectStatus(created, [201], `PriorityLevelConfiguration ${NAME}-${kind}`);
  const uid = ((await created.json()) as { metadata?: { uid?: string } }).metadata?.uid;
  await expectStatus(await request("POST", `${API}/flowschemas`, flowSchema(kind, user)), [201], `FlowSchema ${NAME}`);
  const deadline = performance.now() + 60_000;
  while ((await levelOf()) !== uid) {
    if (performance.now() > deadline) throw new Error(`the server never put ${user} in ${NAME}-${kind}`);
    await Bun.sleep(100);
  }
}

/** Removes the bench's FlowSchema and levels, if any: the user is back in the suggested `global-default`. */
export async function clearLevels(request: Request): Promise<void> {
  await expectStatus(await request("DELETE", `${API}/flowschemas/${NAME}`), [200, 404], `FlowSchema ${NAME}`);
  for (const kind of ["rejecting", "queuing"] as const) {
    const path = `${API}/prioritylevelconfigurations/${NAME}-${kind}`;
    await expectStatus(await request("DELETE", path), [200, 404], `PriorityLevelConfiguration ${NAME}-${kind}`);
  }
}

import { describe, expect, test } from "bun:test";
import { countsSince, flowSchema, parseFlowControlCounts, priorityLevel } from "./flow-control.ts";

// As kube-apiserver 1.20.2 printed them while APF rejected a one-share level (labels trimmed to those read).
const METRICS = `# HELP apiserver_flowcontrol_rejected_requests_total [ALPHA] Number of requests rejected by API Priority and Fairness system
apiserver_flowcontrol_rejected_requests_total{flowSchema="ccm-bench",priorityLevel="ccm-bench-rejecting",reason="concurrency-limit"} 1000
apiserver_flowcontrol_rejected_requests_total{flowSchema="ccm-bench",priorityLevel="ccm-bench-rejecting",reason="queue-full"} 22
apiserver_request_terminations_total{code="429",component="apiserver",group="",resource="nodes",scope="resource",subresource="",verb="PATCH",version="v1"} 1020
apiserver_request_terminations_total{code="429",component="apiserver",group="",resource="nodes",scope="resource",subresource="status",verb="PATCH",version="v1"} 2
apiserver_request_terminations_total{code="504",component="apiserver",group="",resource="nodes",scope="resource",subresource="",verb="PATCH",version="v1"} 7
apiserver_request_total{code="200",component="apiserver",group="",resource="nodes",scope="resource",subresource="",verb="PATCH",version="v1"} 1000
apiserver_request_total{code="429",component="apiserver",group="",resource="nodes",scope="resource",subresource="",verb="PATCH",version="v1"} 3
`;

describe("APF's counters", () => {
  test("sums rejections, 429 terminations and 429 answers over every label set, nothing else", () => {
    expect(parseFlowControlCounts(METRICS)).toEqual({ rejected: 1022, terminated429: 1022, requests429: 3 });
  });

  test("a page without them counts nothing", () => {
    expect(parseFlowControlCounts("# nothing here\n")).toEqual({ rejected: 0, terminated429: 0, requests429: 0 });
  });

  test("what happened between two reads", () => {
    const before = { rejected: 10, terminated429: 10, requests429: 1 };
    expect(countsSince(before, parseFlowControlCounts(METRICS))).toEqual({
      rejected: 1012,
      terminated429: 1012,
      requests429: 2,
    });
  });
});

describe("the bench's priority levels", () => {
  test.each([
    ["rejecting", { type: "Reject" }],
    ["queuing", { type: "Queue", queuing: { queues: 64, handSize: 6, queueLengthLimit: 50 } }],
  ] as const)("the %s level has one share and answers an overflow with %o", (kind, limitResponse) => {
    expect(priorityLevel(kind)).toMatchObject({
      metadata: { name: `ccm-bench-${kind}` },
      spec: { type: "Limited", limited: { assuredConcurrencyShares: 1, limitResponse } },
    });
  });

  test("the schema sends every request of the user to the level, ahead of the suggested schemas", () => {
    const schema = flowSchema("rejecting", "ccm-bench") as {
      spec: { priorityLevelConfiguration: { name: string }; matchingPrecedence: number; rules: unknown[] };
    };
    expect(schema.spec.priorityLevelConfiguration.name).toBe("ccm-bench-rejecting");
    // The suggested system-leader-election schema is at 100, global-default at 9900.
    expect(schema.spec.matchingPrecedence).toBeLessThan(100);
    expect(schema.spec.rules).toEqual([
      {
        subjects: [{ kind: "User", user: { name: "ccm-bench" } }],
        resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"], clusterScope: true, namespaces: ["*"] }],
        nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
      },
    ]);
  });
});

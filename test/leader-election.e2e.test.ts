/**
 * Leader election end to end: compiled manager processes with `--leader-elect=true` against the sandbox's
 * API server (the all-in-one `sandbox --controllers=false`), sharing the Lease `kube-system/cloud-controller-manager`.
 *
 * The tests run in order on one cluster: two managers elect one leader; `kill -9` of it hands over to the standby;
 * a third manager joins as standby and a SIGTERM of the leader hands over to it (those are test/scenarios/
 * leader-election.ts, which test/real/leader-election.real.ts runs on a real API server); then, on this tier only,
 * the Lease is re-created when deleted, and taken by a stranger, which makes the last leader exit 1 with
 * "leaderelection lost".
 *
 * Handover times are measured from the signal to the Lease naming a new holder and printed. They are bounded by the
 * algorithm plus a generous slack for a busy machine: after `kill -9` the standby must first see the last renewal
 * (its attempts are a retry period × (1 + up to 1.2 jitter) apart), wait a lease duration, then try again — with
 * 4s/1s up to about 8.4s, typically lease + retry. After SIGTERM the lease is released at once, and a standby
 * watching the Lease takes it over as soon as it sees the release — so the SIGTERM case runs its standby with the
 * DEFAULT timings (2s retry period, which without the watch alone would mean 2–4.4s): measured 50ms or less.
 */
import { expect, test } from "bun:test";
import { Resources } from "../kube/client-types.ts";
import type { Lease } from "../kube/objects.ts";
import { describeLeaderElectionScenarios, exitWithin, LEASE, LEASE_MS, RETRY_MS } from "./scenarios/leader-election.ts";
import { waitFor } from "./support/processes.ts";
import { startSandbox } from "./support/sandbox.ts";

/** Room for a busy 2-core machine on top of each bound. */
const KILL_SLACK_MS = 10_000;
const TERM_SLACK_MS = 4_000;

describeLeaderElectionScenarios({
  title: "leader election between compiled managers",
  start: (nodes) => startSandbox({ nodes }),
  startTimeoutMs: 120_000,
  boundsMs: { kill: LEASE_MS + RETRY_MS + KILL_SLACK_MS, term: 3_000 + TERM_SLACK_MS },
  logPrefix: "",
  more(run) {
    test("a deleted Lease is created again by the leader, which keeps leading", async () => {
      const id = await run.holder();
      await run.cluster.client.delete(Resources.leases, LEASE.name, { namespace: LEASE.namespace });
      await waitFor(async () => (await run.holder()) === id, {
        timeoutMs: 30_000,
        message: `the Lease back with holder ${id}:\n${run.leader.output()}`,
      });
      expect(run.leader.output()).not.toContain("leaderelection lost");
      expect(run.leader.proc.exitCode).toBeNull();
    }, 60_000);

    test("a Lease taken by another holder stops the leader's controllers, and it exits 1 with 'leaderelection lost'", async () => {
      const stranger = "stranger_e2e";
      // The leader renews every second; retry our write on a conflict.
      await waitFor(
        async () => {
          const lease = await run.readLease();
          if (!lease) return false;
          const spec = { ...lease.spec, holderIdentity: stranger, leaseDurationSeconds: 3600 };
          try {
            await run.cluster.client.update<Lease>(
              Resources.leases,
              { ...lease, spec },
              { namespace: LEASE.namespace },
            );
            return true;
          } catch {
            return false;
          }
        },
        { timeoutMs: 30_000, message: "the Lease taken over" },
      );
      const code = await exitWithin(run.leader, 30_000);
      expect(code).toBe(1);
      const out = run.leader.output();
      expect(out).toContain("leaderelection lost");
      const after = out.slice(out.indexOf("leaderelection lost"));
      expect(after).toContain("route controller stopped");
      expect(after).toContain("service controller stopped");
      expect(out).not.toContain("did not stop within");
      expect(await run.holder()).toBe(stranger);
    }, 60_000);
  },
});

import { afterAll, describe, expect, test } from "bun:test";
import type { Socket } from "bun";
import { createRequester } from "./http.ts";
import { tokenBucketPacer } from "./pacing.ts";
import type { Transport } from "./transport.ts";
import type { WriteFence } from "./write-fence.ts";

/**
 * A Kubernetes write tells the fence whether it was answered: one that ended with no answer after it may have
 * reached the API server (its own timeout, a connection lost after sending) may yet land, so a closing term must
 * not hand over the Lease as if it had not (platform/term-fence.ts); a refused connection reached nothing.
 */

/** A raw TCP server: `answer` closes after a 200, `reset` closes without answering, `silent` never answers. */
const server = Bun.listen<undefined>({
  hostname: "127.0.0.1",
  port: 0,
  socket: {
    data(socket: Socket<undefined>, data) {
      const path = data.toString().split(" ")[1] ?? "";
      if (path.startsWith("/answer")) {
        socket.end(
          "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
        );
      } else if (path.startsWith("/reset")) {
        socket.end();
      }
    },
  },
});
afterAll(() => server.stop(true));

/** A port nothing listens on: bound, read, closed. */
const closedPort = (() => {
  const s = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
})();

function requester(port: number, ends: (boolean | undefined)[]) {
  const transport: Transport = {
    server: `http://127.0.0.1:${port}`,
    source: "test",
    namespace: undefined,
    identity: "test",
    settings: async () => ({ headers: {}, tls: undefined, proxy: undefined }),
    unauthorized: () => {},
  };
  const fence: WriteFence = {
    enter: () => ({ signal: new AbortController().signal, end: (answered) => ends.push(answered) }),
  };
  return createRequester(transport, {
    userAgent: "test",
    pacer: tokenBucketPacer({ qps: 1000, burst: 1000 }),
    now: Date.now,
    requestTimeoutMs: 500,
    fence,
  });
}

describe("a fenced Kubernetes write tells the fence whether it was answered", () => {
  const rows: { name: string; path: string; closed?: boolean; answered: boolean }[] = [
    { name: "the server answered", path: "/answer", answered: true },
    { name: "the connection was lost after sending", path: "/reset", answered: false },
    { name: "no answer came within the request timeout", path: "/silent", answered: false },
    { name: "the connection was refused", path: "/answer", closed: true, answered: true },
  ];
  for (const row of rows) {
    test(`answered is ${row.answered} when ${row.name}`, async () => {
      const ends: (boolean | undefined)[] = [];
      const http = requester(row.closed ? closedPort : server.port, ends);
      await http.send({ method: "POST", path: row.path, body: {} }).catch(() => undefined);
      expect(ends).toEqual([row.answered]);
    });
  }
});

/**
 * A small HTTP/1.1 server over TLS that writes its own status line, for the Proxmox VE emulator: Proxmox VE puts
 * the error's text in the reason phrase (`HTTP/1.1 500 Configuration file '…' does not exist`), which `Bun.serve`
 * replaces by the standard one. Only what the clients here send: requests with `Content-Length` bodies (or none),
 * answered one at a time per connection, kept alive unless the client asks to close.
 */
import type { Socket } from "node:net";
import { createServer, type Server, type TLSSocket } from "node:tls";

/** An answer as written: the status line's code and reason phrase, headers, and the body. */
export interface RawAnswer {
  readonly status: number;
  readonly reason: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Http1Server {
  readonly port: number;
  /** Stops listening and drops every open connection. */
  close(): Promise<void>;
}

const HEAD_END = "\r\n\r\n";
/** Larger heads are refused: the emulator's clients send a few hundred bytes. */
const MAX_HEAD_BYTES = 64 * 1024;

/** Listens on 127.0.0.1:`port` (0: any free port) and answers each request with `handle`'s answer. */
export function serveHttp1(options: {
  readonly port: number;
  readonly tls: { readonly cert: string; readonly key: string };
  readonly handle: (request: Request) => Promise<RawAnswer>;
}): Promise<Http1Server> {
  const sockets = new Set<Socket>();
  const server: Server = createServer({ cert: options.tls.cert, key: options.tls.key }, (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
    serveConnection(socket, () => (server.address() as { port: number }).port, options.handle);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve({
        port: (server.address() as { port: number }).port,
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

function serveConnection(socket: TLSSocket, port: () => number, handle: (request: Request) => Promise<RawAnswer>) {
  let buffered = Buffer.alloc(0);
  let busy = false;

  const next = async (): Promise<void> => {
    if (busy) return;
    const headEnd = buffered.indexOf(HEAD_END);
    if (headEnd < 0) {
      if (buffered.length > MAX_HEAD_BYTES) socket.destroy();
      return;
    }
    const [requestLine = "", ...headerLines] = buffered.subarray(0, headEnd).toString("latin1").split("\r\n");
    const headers = new Headers();
    for (const line of headerLines) {
      const colon = line.indexOf(":");
      if (colon > 0) headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get("content-length") ?? 0);
    const bodyStart = headEnd + HEAD_END.length;
    if (buffered.length < bodyStart + length) return;
    const body = buffered.subarray(bodyStart, bodyStart + length);
    buffered = buffered.subarray(bodyStart + length);

    const [method = "GET", target = "/"] = requestLine.split(" ");
    const close = headers.get("connection")?.toLowerCase() === "close";
    busy = true;
    try {
      const answer = await handle(
        new Request(`https://127.0.0.1:${port()}${target}`, {
          method,
          headers,
          ...(length > 0 && method !== "GET" && method !== "HEAD" && { body }),
        }),
      );
      if (socket.destroyed) return;
      socket.write(statusAndHeaders(answer, close));
      socket.write(answer.body);
      if (close) socket.end();
    } catch {
      socket.destroy();
      return;
    } finally {
      busy = false;
    }
    if (!close) await next();
  };

  socket.on("data", (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    void next();
  });
}

function statusAndHeaders(answer: RawAnswer, close: boolean): string {
  const headers = {
    "content-length": String(Buffer.byteLength(answer.body)),
    connection: close ? "close" : "keep-alive",
    ...answer.headers,
  };
  // A reason phrase holds no line break (RFC 9112 4).
  const reason = answer.reason.replace(/[\r\n]+/g, " ").trim();
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${answer.status} ${reason}\r\n${lines.join("\r\n")}\r\n\r\n`;
}

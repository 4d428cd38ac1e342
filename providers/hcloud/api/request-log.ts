/**
 * `HCLOUD_DEBUG`: one info line per Cloud API request, as hcloud-go's debug writer gives hccm's users one per
 * request and answer. The line holds the method, the path with its query, the answer's status (or why there was
 * none) and how long the answer took to arrive; never a header (the token travels in one) or a body. Each attempt
 * is a line of its own, so a retry shows as a second request.
 */
import type { Now } from "../../../kube/clock.ts";

export function loggedFetch(inner: typeof fetch, log: (line: string) => void, now: Now): typeof fetch {
  const logged = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : input);
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const what = `hcloud API: ${method} ${url.pathname}${url.search}`;
    const start = now();
    try {
      const response = await inner(input, init);
      log(`${what} → ${response.status} in ${now() - start}ms`);
      return response;
    } catch (err) {
      log(`${what} → no answer after ${now() - start}ms: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
  };
  return Object.assign(logged, { preconnect: inner.preconnect }) as typeof fetch;
}

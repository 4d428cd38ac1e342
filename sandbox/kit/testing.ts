/**
 * Test support shared by the emulators' harnesses: one raw HTTP call with a JSON body, its answer read back.
 * Nothing in production imports this file.
 */
export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the API's JSON freely
  readonly body: any;
}

/** `body` is sent as it is when a string (to test bad JSON), else as JSON. */
export async function callJson(
  url: string,
  method: string,
  headers: Readonly<Record<string, string>>,
  body?: unknown,
): Promise<Answer> {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

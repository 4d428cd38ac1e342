import { describe, expect, test } from "bun:test";
import { redactUrlCredentials } from "./url-credentials.ts";

describe("redacting the credentials of URLs in a text", () => {
  test.each([
    ["a password, keeping the user", "http://u:pw@host/v1", "http://u:xxxxx@host/v1"],
    ["a user name alone, which is a token", "https://0123abcd@host", "https://xxxxx@host"],
    ["a password holding an @", "http://u:p@ss@host:8080/x", "http://u:xxxxx@host:8080/x"],
    ["an empty password", "http://u:@host", "http://u:xxxxx@host"],
    [
      "every URL in a message",
      'GET http://a:b@h1/v1/servers: refused; proxy "http://c:d@h2:3128"',
      'GET http://a:xxxxx@h1/v1/servers: refused; proxy "http://c:xxxxx@h2:3128"',
    ],
    [
      "a URL without credentials, untouched",
      "https://api.hetzner.cloud/v1?x=a@b",
      "https://api.hetzner.cloud/v1?x=a@b",
    ],
    ["an @ after the path, untouched", "http://host/users/me@example.com", "http://host/users/me@example.com"],
    ["an e-mail address, untouched", "write to ops@example.com", "write to ops@example.com"],
    ["an upper-case scheme", "HTTP://U:PW@HOST/", "HTTP://U:xxxxx@HOST/"],
  ])("%s", (_, text, want) => {
    expect(redactUrlCredentials(text)).toBe(want);
  });
});

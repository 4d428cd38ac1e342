/**
 * Credentials in URLs, kept out of everything the manager prints. An endpoint, a proxy or a kubeconfig's server may
 * be given as `http://user:password@host/…`; every URL in a message, a log line or an error goes through
 * `redactUrlCredentials` first.
 *
 * As Go's `url.URL.Redacted` (upstream: net/url `URL.Redacted`), the password becomes `xxxxx` and the user name
 * stays, so the line still says who; unlike it, a user name without a password (`https://<token>@host`, the
 * usual way of putting a token in a URL) is a credential and becomes `xxxxx` too.
 */

export const REDACTED = "xxxxx";

/**
 * `scheme://userinfo@` anywhere in a text. The userinfo runs to the last `@` before the host (a password may hold an
 * `@` the way a user typed it), never past a `/`, `?`, `#`, a space or a quote, which end an authority.
 */
const USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/?#"'<>`]*)@/gi;

/** `text` with the credentials of every URL in it replaced: `http://u:xxxxx@host/v1`, `https://xxxxx@host`. */
export function redactUrlCredentials(text: string): string {
  return text.replace(USERINFO, (_, scheme: string, userinfo: string) => {
    const colon = userinfo.indexOf(":");
    return colon < 0 ? `${scheme}${REDACTED}@` : `${scheme}${userinfo.slice(0, colon)}:${REDACTED}@`;
  });
}

/**
 * Secrets read from a file a setting names (`HCLOUD_TOKEN_FILE`, `tokenFile`, `token_secret_file`): a mounted
 * Kubernetes Secret or a systemd credential, so the secret never sits in the environment or the cloud-config. One
 * reader for every provider and every source, so each says the same thing about a file it cannot use.
 */
import { readFile as readFileFromDisk } from "node:fs/promises";

/** Reads a file's text; providers take one so tests need no disk. */
export type ReadFile = (path: string) => Promise<string>;

export const readFileFromDiskUtf8: ReadFile = (path) => readFileFromDisk(path, "utf8");

/** The secret, or why the file named cannot give one (a message to put after the setting's name). */
export type SecretFileResult =
  | { readonly ok: true; readonly value: string }
  | { readonly ok: false; readonly message: string; readonly cause?: unknown };

/**
 * The content of `path`, trimmed unless `trim` is false (a PEM bundle is kept as written). A file that cannot be
 * read, or holds only whitespace, is a problem, never an empty secret.
 */
export async function readSecretFile(
  path: string,
  { readFile = readFileFromDiskUtf8, trim = true }: { readonly readFile?: ReadFile; readonly trim?: boolean } = {},
): Promise<SecretFileResult> {
  let text: string;
  try {
    text = await readFile(path);
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? String(err);
    return { ok: false, message: `cannot read "${path}": ${reason}`, cause: err };
  }
  if (text.trim() === "") return { ok: false, message: `names "${path}", which is empty` };
  return { ok: true, value: trim ? text.trim() : text };
}

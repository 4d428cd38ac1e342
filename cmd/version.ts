/** What `--version` prints; the build stamps the values into the entry it compiles. */

export interface BuildInfo {
  readonly version: string;
  readonly commit: string;
  readonly buildDate: string;
}

export const DEV_BUILD: BuildInfo = { version: "v0.0.0-dev", commit: "unknown", buildDate: "unknown" };

export function renderVersion(binaryName: string, info: BuildInfo, raw: boolean): string {
  if (raw) {
    return JSON.stringify({ ...info, runtime: `bun ${Bun.version}`, platform: `${process.platform}/${process.arch}` });
  }
  return `${binaryName} ${info.version}`;
}

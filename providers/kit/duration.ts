/** Go `time.ParseDuration` syntax (`300ms`, `1.5h`, `1m30s`, `-1s`), as upstream flags use it, in milliseconds. */

const UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds, or `undefined` when `text` is not a Go duration. `0` needs no unit, as in Go. */
export function parseDuration(text: string): number | undefined {
  const m = /^([+-]?)(.*)$/.exec(text.trim());
  if (!m) return undefined;
  const [, sign, rest = ""] = m;
  if (rest === "0") return 0;
  if (rest === "") return undefined;
  let total = 0;
  let matched = "";
  for (const part of rest.matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/g)) {
    const [whole, num = "", unit = ""] = part;
    total += Number(num) * (UNITS_MS[unit] ?? Number.NaN);
    matched += whole;
  }
  if (matched !== rest || !Number.isFinite(total)) return undefined;
  return sign === "-" ? -total : total;
}

/** A duration in Go's shortest form (`1m30s`, `500ms`, `0s`). */
export function formatDuration(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  let rest = Math.abs(ms);
  if (rest < 1000) return `${sign}${rest}ms`;
  let out = "";
  const h = Math.floor(rest / 3_600_000);
  rest -= h * 3_600_000;
  const m = Math.floor(rest / 60_000);
  rest -= m * 60_000;
  if (h) out += `${h}h`;
  if (h || m) out += `${m}m`;
  out += `${rest / 1000}s`;
  return sign + out;
}

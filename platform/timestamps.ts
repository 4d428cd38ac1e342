/**
 * Kubernetes timestamp formats. `metav1.Time` is RFC 3339 with whole seconds; `metav1.MicroTime` (lease renew and
 * acquire times, `eventTime`) has exactly six fractional digits — the API server rejects other precisions there.
 */

/** `2026-01-01T00:00:00Z` */
export const formatTime = (ms: number): string =>
  new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");

/** `2026-01-01T00:00:00.123000Z` (our clock has millisecond resolution; the last three digits are zero). */
export const formatMicroTime = (ms: number): string => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** Moved to providers/kit/duration.ts, where providers' annotation readers share it; kept so imports here still work. */
export { formatDuration, parseDuration } from "../providers/kit/duration.ts";

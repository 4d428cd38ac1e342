/** A consola instance that keeps what was logged, for assertions (and keeps test output quiet). */
import { type ConsolaInstance, createConsola } from "consola";

export interface CapturedLog {
  readonly type: string;
  readonly message: string;
}

export const captureLogger = (): { logger: ConsolaInstance; logs: CapturedLog[] } => {
  const logs: CapturedLog[] = [];
  const logger = createConsola({
    level: 5,
    reporters: [{ log: (entry) => void logs.push({ type: entry.type, message: entry.args.map(String).join(" ") }) }],
  });
  return { logger, logs };
};

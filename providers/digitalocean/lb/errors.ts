/** The Service cannot be served as its annotations and spec say; the message names the setting to change. */
export class LoadBalancerSpecError extends Error {
  override readonly name = "LoadBalancerSpecError";
}

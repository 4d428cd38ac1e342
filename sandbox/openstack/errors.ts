/**
 * Each OpenStack service's error envelope, as its API reference and its WSGI stack answer:
 *
 * - Keystone, and keystonemiddleware's 401 in front of every service: `{"error": {"code", "title", "message"}}`.
 * - Nova: the fault's name as the only key, `{"itemNotFound": {"code": 404, "message"}}`.
 * - Neutron: `{"NeutronError": {"type", "message", "detail"}}`.
 * - Octavia (WSME): `{"faultcode": "Client" | "Server", "faultstring", "debuginfo": null}`.
 */

export type Service = "identity" | "compute" | "network" | "load-balancer";

const TITLES: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Request Entity Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Nova's fault names (`nova/api/openstack/wsgi.py` `Fault._fault_names`). */
const NOVA_FAULTS: Readonly<Record<number, string>> = {
  400: "badRequest",
  401: "unauthorized",
  403: "forbidden",
  404: "itemNotFound",
  405: "badMethod",
  406: "notAcceptable",
  409: "conflictingRequest",
  413: "overLimit",
  429: "overLimit",
  500: "computeFault",
  501: "notImplemented",
  503: "serviceUnavailable",
};

/** Neutron's default types (webob's exception class names), where no resource-specific one applies. */
const NEUTRON_TYPES: Readonly<Record<number, string>> = {
  400: "HTTPBadRequest",
  403: "HTTPForbidden",
  404: "HTTPNotFound",
  409: "HTTPConflict",
  500: "HTTPInternalServerError",
  503: "HTTPServiceUnavailable",
};

/** Thrown by routes; the router answers it in the envelope of the service it came from. */
export class OsError extends Error {
  override readonly name = "OsError";
  constructor(
    readonly status: number,
    message: string,
    /** Neutron's resource-specific type (`PortNotFound`); default by status. */
    readonly type?: string,
  ) {
    super(message);
  }
}

export const unauthorized = () => new OsError(401, "The request you have made requires authentication.");

export function envelope(service: Service, err: OsError): unknown {
  // keystonemiddleware answers 401 for every service, in Keystone's shape.
  if (service === "identity" || err.status === 401) {
    return { error: { code: err.status, title: TITLES[err.status] ?? "Error", message: err.message } };
  }
  if (service === "compute") {
    return { [NOVA_FAULTS[err.status] ?? "computeFault"]: { code: err.status, message: err.message } };
  }
  if (service === "load-balancer") {
    return { faultcode: err.status < 500 ? "Client" : "Server", faultstring: err.message, debuginfo: null };
  }
  return {
    NeutronError: { type: err.type ?? NEUTRON_TYPES[err.status] ?? "HTTPError", message: err.message, detail: "" },
  };
}

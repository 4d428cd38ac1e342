/** `/load_balancers`: list, create, get, update, delete, and every action of `loadBalancerActions`. */
import * as v from "valibot";
import { checkLabels } from "../labels.ts";
import { list } from "../listing.ts";
import {
  createLoadBalancer,
  deleteLoadBalancer,
  type LoadBalancerCommand,
  loadBalancerActions,
  loadBalancerView,
  updateLoadBalancer,
} from "../state/load-balancers.ts";
import type { LoadBalancer } from "../state/types.ts";
import { resourceActionEndpoints } from "./actions.ts";
import {
  bodyOf,
  type Endpoint,
  idOrName,
  idParam,
  json,
  labelsSchema,
  listAnswer,
  nameSchema,
  port,
  resourceId,
} from "./endpoint.ts";

const protocol = v.picklist(["tcp", "http", "https"]);
const seconds = v.pipe(v.number(), v.integer(), v.minValue(1));
/** The API refuses other counts with `invalid_input` ("Must be between 1 and 5."). */
const retries = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(5, "Must be between 1 and 5."));

const healthCheck = v.object({
  protocol: v.exactOptional(protocol),
  port: v.exactOptional(port),
  interval: v.exactOptional(seconds),
  timeout: v.exactOptional(seconds),
  retries: v.exactOptional(retries),
  http: v.exactOptional(
    v.object({
      domain: v.exactOptional(v.nullable(v.string())),
      path: v.exactOptional(v.pipe(v.string(), v.startsWith("/", "must start with '/'"))),
      response: v.exactOptional(v.string()),
      status_codes: v.exactOptional(
        v.array(v.pipe(v.string(), v.regex(/^[1-5][0-9?]{2}$/, "must be a status code like 200 or 2??"))),
      ),
      tls: v.exactOptional(v.boolean()),
    }),
  ),
});

const service = v.object({
  protocol: v.exactOptional(protocol),
  listen_port: v.exactOptional(port),
  destination_port: v.exactOptional(port),
  proxyprotocol: v.exactOptional(v.boolean()),
  http: v.exactOptional(
    v.object({
      cookie_name: v.exactOptional(v.pipe(v.string(), v.nonEmpty())),
      cookie_lifetime: v.exactOptional(seconds),
      certificates: v.exactOptional(v.array(resourceId)),
      redirect_http: v.exactOptional(v.boolean()),
      sticky_sessions: v.exactOptional(v.boolean()),
      timeout_idle: v.exactOptional(seconds),
    }),
  ),
  health_check: v.exactOptional(healthCheck),
});

/**
 * A new service (in `POST /load_balancers` or `add_service`): the API document requires a health check's
 * `protocol`, `port`, `interval`, `timeout` and `retries`, so one without them is refused 422 `invalid_input`.
 * `update_service` changes only the fields it names.
 */
const newService = v.object({
  ...service.entries,
  health_check: v.exactOptional(
    v.object({
      ...healthCheck.entries,
      protocol,
      port,
      interval: seconds,
      timeout: seconds,
      retries,
    }),
  ),
});

const target = v.variant("type", [
  v.object({
    type: v.literal("server"),
    server: v.object({ id: resourceId }),
    use_private_ip: v.exactOptional(v.boolean()),
  }),
  v.object({
    type: v.literal("label_selector"),
    label_selector: v.object({ selector: v.pipe(v.string(), v.nonEmpty()) }),
    use_private_ip: v.exactOptional(v.boolean()),
  }),
  v.object({ type: v.literal("ip"), ip: v.object({ ip: v.string() }) }),
]);

const algorithm = v.object({ type: v.picklist(["round_robin", "least_connections"]) });

const createSchema = v.object({
  name: nameSchema,
  load_balancer_type: idOrName,
  algorithm: v.exactOptional(algorithm),
  location: v.exactOptional(idOrName),
  network_zone: v.exactOptional(v.string()),
  labels: v.exactOptional(labelsSchema),
  services: v.exactOptional(v.array(newService)),
  targets: v.exactOptional(v.array(target)),
  public_interface: v.exactOptional(v.boolean()),
  network: v.exactOptional(resourceId),
});
const updateSchema = v.object({ name: v.exactOptional(nameSchema), labels: v.exactOptional(labelsSchema) });

const actionSchemas: {
  [C in LoadBalancerCommand]: v.GenericSchema<unknown, Parameters<(typeof loadBalancerActions)[C]>[2]>;
} = {
  add_service: newService,
  update_service: v.object({ ...service.entries, listen_port: port }),
  delete_service: v.object({ listen_port: port }),
  add_target: target,
  remove_target: target,
  attach_to_network: v.object({
    network: resourceId,
    ip: v.exactOptional(v.string()),
    ip_range: v.exactOptional(v.string()),
  }),
  detach_from_network: v.object({ network: resourceId }),
  change_algorithm: algorithm,
  change_type: v.object({ load_balancer_type: idOrName }),
  enable_public_interface: v.unknown(),
  disable_public_interface: v.unknown(),
  change_dns_ptr: v.object({ ip: v.string(), dns_ptr: v.nullable(v.string()) }),
  change_protection: v.object({ delete: v.exactOptional(v.boolean()) }),
};

const sortable = {
  id: (lb: LoadBalancer) => lb.id,
  name: (lb: LoadBalancer) => lb.name,
  created: (lb: LoadBalancer) => lb.created,
};

export const loadBalancerEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/load_balancers",
    handle: ({ world, url }) => {
      const listed = list([...world.loadBalancers.values()], url, {
        sortable,
        name: (lb) => lb.name,
        labels: (lb) => lb.labels,
      });
      return listAnswer("load_balancers", listed, (lb) => loadBalancerView(world, lb));
    },
  },
  {
    method: "POST",
    route: "/load_balancers",
    handle: async (call) => {
      const body = await bodyOf(call, createSchema);
      if (body.labels) checkLabels(body.labels);
      const { loadBalancer, action } = createLoadBalancer(call.world, body);
      return json({ load_balancer: loadBalancerView(call.world, loadBalancer), action }, 201);
    },
  },
  {
    method: "GET",
    route: "/load_balancers/:id",
    handle: (call) => json({ load_balancer: loadBalancerView(call.world, call.world.loadBalancer(idParam(call))) }),
  },
  {
    method: "PUT",
    route: "/load_balancers/:id",
    handle: async (call) => {
      const lb = call.world.loadBalancer(idParam(call));
      const body = await bodyOf(call, updateSchema);
      if (body.labels) checkLabels(body.labels);
      updateLoadBalancer(call.world, lb, body);
      return json({ load_balancer: loadBalancerView(call.world, lb) });
    },
  },
  {
    method: "DELETE",
    route: "/load_balancers/:id",
    handle: (call) => {
      deleteLoadBalancer(call.world, call.world.loadBalancer(idParam(call)));
      return new Response(null, { status: 204 });
    },
  },
  ...(Object.keys(loadBalancerActions) as LoadBalancerCommand[]).map(
    (command): Endpoint => ({
      method: "POST",
      route: `/load_balancers/:id/actions/${command}`,
      handle: async (call) => {
        const lb = call.world.loadBalancer(idParam(call));
        const body = await bodyOf(call, actionSchemas[command]);
        const run = loadBalancerActions[command] as (w: typeof call.world, lb: LoadBalancer, b: unknown) => unknown;
        return json({ action: run(call.world, lb, body) }, 201);
      },
    }),
  ),
  ...resourceActionEndpoints("load_balancers", "load_balancer", (id, call) => call.world.loadBalancer(id)),
];

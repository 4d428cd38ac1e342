/** `GET /actions`, `GET /actions/{id}`, and each resource kind's `/{kind}/{id}/actions[/{action_id}]`. */
import type { Action, ResourceType } from "../actions.ts";
import { HcloudError, invalidInput, notFound } from "../errors.ts";
import { list } from "../listing.ts";
import { type Endpoint, idParam, json, listAnswer } from "./endpoint.ts";

const sortable = {
  id: (a: Action) => a.id,
  command: (a: Action) => a.command,
  status: (a: Action) => a.status,
  started: (a: Action) => a.started,
  finished: (a: Action) => a.finished ?? "",
};

const byStatus = (a: Action, q: URLSearchParams) => {
  const statuses = q.getAll("status");
  return statuses.length === 0 || statuses.includes(a.status);
};

export const actionEndpoints: Endpoint[] = [
  {
    method: "GET",
    route: "/actions",
    handle: ({ world, url }) => {
      const ids = url.searchParams.getAll("id").map((t) => {
        if (!/^\d+$/.test(t)) throw invalidInput({ id: [`'${t}' is not an action ID`] });
        return Number(t);
      });
      const all = ids.length === 0 ? world.actions.all() : world.actions.all().filter((a) => ids.includes(a.id));
      return listAnswer("actions", list(all, url, { sortable, filter: byStatus }), (a) => a);
    },
  },
  {
    method: "GET",
    route: "/actions/:id",
    handle: (call) => {
      const action = call.world.actions.get(idParam(call));
      if (!action) throw notFound("action", idParam(call));
      return json({ action });
    },
  },
];

/** The action endpoints of one kind: `/load_balancers/:id/actions` and `/load_balancers/:id/actions/:action_id`. */
export function resourceActionEndpoints(
  kind: string,
  type: ResourceType,
  exists: (id: number, call: Parameters<Endpoint["handle"]>[0]) => void,
): Endpoint[] {
  return [
    {
      method: "GET",
      route: `/${kind}/:id/actions`,
      handle: (call) => {
        const id = idParam(call);
        exists(id, call);
        return listAnswer(
          "actions",
          list(call.world.actions.of({ id, type }), call.url, { sortable, filter: byStatus }),
          (a) => a,
        );
      },
    },
    {
      method: "GET",
      route: `/${kind}/:id/actions/:action_id`,
      handle: (call) => {
        const id = idParam(call);
        exists(id, call);
        const action = call.world.actions.get(idParam(call, "action_id"));
        if (!action?.resources.some((r) => r.id === id && r.type === type)) {
          throw new HcloudError("not_found", `${type} ${id} has no action ${call.params.action_id}`);
        }
        return json({ action });
      },
    },
  ];
}

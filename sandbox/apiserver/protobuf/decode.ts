/**
 * Kubernetes protobuf request bodies (`application/vnd.kubernetes.protobuf`, what kubectl's typed clients send)
 * to the JSON object the same request in JSON would carry, so that the JSON path's validation and storage apply
 * unchanged. The body is the magic `k8s\0` and a `runtime.Unknown` envelope: {typeMeta{apiVersion, kind}, raw,
 * contentEncoding, contentType}; `raw` is the kind's message, read through the tables in messages.ts.
 *
 * Answers are never protobuf: kubectl also accepts JSON, and the server answers in it.
 */
import type { JsonObject, Obj } from "../json.ts";
import { ApiError, badRequest } from "../status-errors.ts";
import { formatTime } from "../times.ts";
import type { FieldType, Message } from "./field-types.ts";
import { MESSAGES } from "./messages.ts";
import { Reader, WireError, WireType } from "./wire.ts";

export const PROTOBUF = "application/vnd.kubernetes.protobuf";
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const SEND_JSON =
  "send it as JSON instead (with kubectl: write the object with `--dry-run=client -o yaml` and `kubectl create -f` it)";

const unsupported = (what: string): ApiError =>
  new ApiError(
    415,
    "UnsupportedMediaType",
    `the sandbox API emulator cannot decode ${what} from protobuf; ${SEND_JSON}`,
  );

/** The object a protobuf request body carries, with its `apiVersion` and `kind`; 415 or 400 when it cannot. */
export const decodeProtobuf = (body: Uint8Array): Obj => {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) {
    throw badRequest('the protobuf request body does not start with the Kubernetes magic "k8s\\x00"');
  }
  try {
    const envelope = new Reader(body, MAGIC.length);
    let apiVersion = "";
    let kind = "";
    let raw: Uint8Array = new Uint8Array();
    let encoding = "";
    while (!envelope.done) {
      const { field, wire } = envelope.tag();
      if (field === 1 && wire === WireType.bytes) {
        const meta = new Reader(envelope.bytes());
        while (!meta.done) {
          const t = meta.tag();
          if (t.field === 1 && t.wire === WireType.bytes) apiVersion = meta.string();
          else if (t.field === 2 && t.wire === WireType.bytes) kind = meta.string();
          else meta.skip(t.wire);
        }
      } else if (field === 2 && wire === WireType.bytes) raw = envelope.bytes();
      else if (field === 3 && wire === WireType.bytes) encoding = envelope.string();
      else envelope.skip(wire);
    }
    const what = `${kind || "(no kind)"} (apiVersion ${apiVersion || "none"})`;
    const msg = MESSAGES.get(`${apiVersion}/${kind}`);
    if (!msg) throw unsupported(`objects of kind ${what}`);
    if (encoding) throw unsupported(`a ${what} body with content encoding "${encoding}"`);
    return { apiVersion, kind, ...decodeMessage(new Reader(raw), msg, kind, "") };
  } catch (err) {
    if (err instanceof WireError) throw badRequest(`the protobuf request body is malformed: ${err.message}`);
    throw err;
  }
};

const decodeMessage = (r: Reader, msg: Message, kind: string, path: string): JsonObject => {
  const out: JsonObject = {};
  while (!r.done) {
    const { field, wire } = r.tag();
    const entry = msg.fields[field];
    if (!entry) throw unsupported(`${kind}: field ${field} of ${msg.name}${path ? ` (at ${path})` : ""}`);
    const [name, type] = entry;
    const at = path ? `${path}.${name}` : name;
    if (type === "unsupported") throw unsupported(`${kind}: the field ${at}`);
    readField(r, wire, type, out, name, kind, at);
  }
  return out;
};

const listAt = (out: JsonObject, name: string): unknown[] => {
  if (!Array.isArray(out[name])) out[name] = [];
  return out[name] as unknown[];
};

const mapAt = (out: JsonObject, name: string): JsonObject => {
  if (out[name] === undefined) out[name] = {};
  return out[name] as JsonObject;
};

const expectWire = (wire: number, want: number, at: string): void => {
  if (wire !== want) throw new WireError(`${at} has wire type ${wire}, expected ${want}`);
};

const readField = (
  r: Reader,
  wire: number,
  type: Exclude<FieldType, "unsupported">,
  out: JsonObject,
  name: string,
  kind: string,
  at: string,
): void => {
  if (Array.isArray(type)) {
    expectWire(wire, WireType.bytes, at);
    listAt(out, name).push(decodeMessage(new Reader(r.bytes()), type[0] as Message, kind, `${at}[]`));
    return;
  }
  if (typeof type === "object") {
    expectWire(wire, WireType.bytes, at);
    out[name] = decodeMessage(new Reader(r.bytes()), type as Message, kind, at);
    return;
  }
  switch (type) {
    case "int":
    case "int?":
    case "bool":
    case "bool?": {
      expectWire(wire, WireType.varint, at);
      const n = r.varint();
      const v = type.startsWith("bool") ? n !== 0 : n;
      if (type.endsWith("?") || n !== 0) out[name] = v;
      return;
    }
    case "string":
    case "string?": {
      expectWire(wire, WireType.bytes, at);
      const s = r.string();
      if (type === "string?" || s !== "") out[name] = s;
      return;
    }
    case "bytes":
      expectWire(wire, WireType.bytes, at);
      out[name] = Buffer.from(r.bytes()).toString("base64");
      return;
    case "[string]":
      expectWire(wire, WireType.bytes, at);
      listAt(out, name).push(r.string());
      return;
    case "time": {
      expectWire(wire, WireType.bytes, at);
      const t = new Reader(r.bytes());
      let seconds = 0;
      while (!t.done) {
        const f = t.tag();
        if (f.field === 1 && f.wire === WireType.varint) seconds = t.varint();
        else t.skip(f.wire);
      }
      // Go's zero Time is JSON null; a Time the client did not set is left out, as the JSON path's omitempty does.
      if (seconds !== 0) out[name] = formatTime(seconds * 1000);
      return;
    }
    case "intOrString":
      expectWire(wire, WireType.bytes, at);
      out[name] = intOrString(new Reader(r.bytes()));
      return;
    case "quantity":
      expectWire(wire, WireType.bytes, at);
      out[name] = quantity(new Reader(r.bytes()));
      return;
    case "{string}":
    case "{bytes}":
    case "{quantity}": {
      expectWire(wire, WireType.bytes, at);
      const [key, value] = mapEntry(new Reader(r.bytes()), type);
      mapAt(out, name)[key] = value;
      return;
    }
  }
};

/** intstr.IntOrString: {type (0 int, 1 string), intVal, strVal}. */
const intOrString = (r: Reader): number | string => {
  let type = 0;
  let intVal = 0;
  let strVal = "";
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.varint) type = r.varint();
    else if (field === 2 && wire === WireType.varint) intVal = r.varint();
    else if (field === 3 && wire === WireType.bytes) strVal = r.string();
    else r.skip(wire);
  }
  return type === 1 ? strVal : intVal;
};

/** resource.Quantity: {string}. */
const quantity = (r: Reader): string => {
  let s = "";
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.bytes) s = r.string();
    else r.skip(wire);
  }
  return s;
};

/** A map entry: {key = 1, value = 2}. */
const mapEntry = (r: Reader, type: "{string}" | "{bytes}" | "{quantity}"): [string, string] => {
  let key = "";
  let value = "";
  while (!r.done) {
    const { field, wire } = r.tag();
    if (field === 1 && wire === WireType.bytes) key = r.string();
    else if (field === 2 && wire === WireType.bytes) {
      if (type === "{bytes}") value = Buffer.from(r.bytes()).toString("base64");
      else if (type === "{quantity}") value = quantity(new Reader(r.bytes()));
      else value = r.string();
    } else r.skip(wire);
  }
  return [key, value];
};

/**
 * A provider's Service annotations, declared once: key, reader, default, description and example. The declarations
 * drive the reading (`AnnotationSet.read`, which collects every problem of a Service), the error that reports them
 * (`InvalidAnnotationsError`, one message naming each annotation, its value and what is accepted, which the service
 * controller turns into one Warning event), and the generated reference page (`reference.ts`).
 */
import type { Service } from "../../../kube/objects.ts";
import type { Reader } from "./readers.ts";

export interface AnnotationDoc<T> {
  /** What it does, for the reference page; a sentence or two. */
  readonly description: string;
  /** A value that reads correctly, for the reference page (a test checks that it does). */
  readonly example: string;
  /** The value when not set; without one, "not set" reads as `undefined`. */
  readonly default?: T;
  /** How the reference page states the default when the reader's own spelling would not say it (`all sources`). */
  readonly defaultText?: string;
  /** Who writes it, when not the user: the reference page then says not to edit it. */
  readonly writtenBy?: "provider";
}

/** One declared annotation. `V` is what reading gives: `T`, or `T | undefined` when there is no default. */
export interface Annotation<T, V = T | undefined> extends AnnotationDoc<T> {
  readonly key: string;
  readonly reader: Reader<T>;
  /** Type-level only: what reading gives. */
  readonly __value?: V;
}

/** Declares one annotation; with a `default`, reading it never gives `undefined`. */
// `NoInfer`: the reader alone decides `T`, so a default of "a" for `oneOf(["a", "b"])` does not widen it to string.
export function annotation<T>(
  key: string,
  reader: Reader<T>,
  doc: AnnotationDoc<NoInfer<T>> & { default: NoInfer<T> },
): Annotation<T, T>;
export function annotation<T>(
  key: string,
  reader: Reader<T>,
  doc: AnnotationDoc<NoInfer<T>>,
): Annotation<T, T | undefined>;
export function annotation<T>(key: string, reader: Reader<T>, doc: AnnotationDoc<T>): Annotation<T> {
  return { key, reader, ...doc };
}

/** A reading of one annotation that tells "not set" from "invalid" from a value. */
export type AnnotationRead<T> =
  | { readonly state: "unset" }
  | { readonly state: "valid"; readonly value: T; readonly text: string }
  | { readonly state: "invalid"; readonly text: string; readonly problem: AnnotationProblem };

/** One annotation a Service sets to something its reader does not accept. */
export interface AnnotationProblem {
  readonly key: string;
  /** The annotation's text as written. */
  readonly value: string;
  /** What is wrong in particular, when the reader could say (`"banana" is not a port of the Service`). */
  readonly reason?: string;
  /** What the reader accepts (`an integer from 1 to 10`). */
  readonly accepts: string;
}

/** The annotation on `service`, read. Surrounding space is ignored; an absent key is "unset". */
export function readAnnotation<T>(service: Service, declared: Annotation<T, unknown>): AnnotationRead<T> {
  const raw = service.metadata?.annotations?.[declared.key];
  if (raw === undefined || raw === null) return { state: "unset" };
  const parsed = declared.reader.parse(raw.trim(), service);
  if (parsed.ok) return { state: "valid", value: parsed.value, text: raw };
  const problem: AnnotationProblem = {
    key: declared.key,
    value: raw,
    accepts: declared.reader.accepts,
    ...(parsed.reason === undefined ? {} : { reason: parsed.reason }),
  };
  return { state: "invalid", text: raw, problem };
}

/** Values longer than this are cut in messages: an event should stay readable whatever was pasted. */
const MAX_QUOTED = 120;

const quote = (value: string): string =>
  value.length > MAX_QUOTED
    ? `${JSON.stringify(value.slice(0, MAX_QUOTED))}… (${value.length} characters)`
    : JSON.stringify(value);

/** `key="value": reason; expected …`, the form every problem takes in messages. */
export function describeProblem(p: AnnotationProblem): string {
  return `${p.key}=${quote(p.value)}: ${p.reason ? `${p.reason}; ` : ""}expected ${p.accepts}`;
}

/** A Service sets annotations to values they do not accept; the message names every one. */
export class InvalidAnnotationsError extends Error {
  override readonly name = "InvalidAnnotationsError";
  readonly problems: readonly AnnotationProblem[];
  constructor(problems: readonly AnnotationProblem[], options?: ErrorOptions) {
    const n = problems.length;
    super(`${n} invalid annotation${n === 1 ? "" : "s"}: ${problems.map(describeProblem).join(" | ")}`, options);
    this.problems = problems;
  }
}

export type AnnotationValues<D extends Record<string, Annotation<unknown, unknown>>> = {
  readonly [K in keyof D]: D[K] extends Annotation<unknown, infer V> ? V : never;
};

export interface AnnotationReading<V> {
  /** Each annotation's value; an invalid one reads as its default (or `undefined`), so check `problems` first. */
  readonly values: V;
  readonly problems: readonly AnnotationProblem[];
}

export interface AnnotationSet<D extends Record<string, Annotation<unknown, unknown>>> {
  readonly declared: D;
  /** In declaration order, for the reference page. */
  readonly list: readonly Annotation<unknown, unknown>[];
  /** Every annotation of the set on `service`, with every problem found. */
  read(service: Service): AnnotationReading<AnnotationValues<D>>;
  /** The values, or an `InvalidAnnotationsError` naming every problem. */
  parse(service: Service): AnnotationValues<D>;
}

/** Declares a provider's annotations; keys must be unique. */
export function defineAnnotations<const D extends Record<string, Annotation<unknown, unknown>>>(
  declared: D,
): AnnotationSet<D> {
  const list = Object.values(declared) as Annotation<unknown, unknown>[];
  const keys = new Set<string>();
  for (const a of list) {
    if (keys.has(a.key)) throw new Error(`annotation ${a.key} is declared twice`);
    keys.add(a.key);
  }
  const read = (service: Service): AnnotationReading<AnnotationValues<D>> => {
    const values: Record<string, unknown> = {};
    const problems: AnnotationProblem[] = [];
    for (const [name, a] of Object.entries(declared) as [string, Annotation<unknown, unknown>][]) {
      const r = readAnnotation(service, a);
      if (r.state === "invalid") problems.push(r.problem);
      values[name] = r.state === "valid" ? r.value : a.default;
    }
    return { values: values as AnnotationValues<D>, problems };
  };
  return {
    declared,
    list,
    read,
    parse(service) {
      const { values, problems } = read(service);
      if (problems.length > 0) throw new InvalidAnnotationsError(problems);
      return values;
    },
  };
}

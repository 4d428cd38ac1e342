/**
 * The field tables' shape: each message names, per protobuf field number, its JSON field and type.
 *
 * Field types:
 * - `string`, `int`, `bool`, `bytes`: Go value fields. The Go encoder writes them even when zero; JSON's
 *   `omitempty` leaves zeros out, so the decoder does too. `bytes` becomes base64, as JSON writes `[]byte`.
 * - `string?`, `int?`, `bool?`: Go pointer fields, written only when set, so a zero is kept.
 * - `time` (meta/v1 Time: seconds, nanos), `intOrString`, `quantity`: the apimachinery value types.
 * - `[string]` repeated, `{string}` `{bytes}` `{quantity}` maps with string keys; a Message or `[Message]`.
 * - `unsupported`: a field kubectl's generators never set; a body that sets it is refused naming it.
 */

export type FieldType =
  | "string"
  | "int"
  | "bool"
  | "bytes"
  | "string?"
  | "int?"
  | "bool?"
  | "time"
  | "intOrString"
  | "quantity"
  | "[string]"
  | "{string}"
  | "{bytes}"
  | "{quantity}"
  | "unsupported"
  | Message
  | readonly [Message];

export interface Message {
  readonly name: string;
  readonly fields: Readonly<Record<number, readonly [string, FieldType]>>;
}

export const message = (name: string, fields: Message["fields"]): Message => ({ name, fields });

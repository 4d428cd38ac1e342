/**
 * Reading the protobuf wire format (https://protobuf.dev/programming-guides/encoding/): varints, length-delimited
 * fields and the fixed-width ones we only skip. Written here rather than taken from protobufjs because the
 * emulator needs only this reader (no schemas, no encoder, no code generation), and a dependency would grow the
 * compiled executables for about sixty lines.
 */

/** The body is not well-formed protobuf (truncated, or a field of an impossible wire type). */
export class WireError extends Error {}

export const WireType = { varint: 0, fixed64: 1, bytes: 2, fixed32: 5 } as const;

export class Reader {
  readonly #buf: Uint8Array;
  #pos: number;
  readonly #end: number;

  constructor(buf: Uint8Array, start = 0, end = buf.length) {
    this.#buf = buf;
    this.#pos = start;
    this.#end = end;
  }

  get done(): boolean {
    return this.#pos >= this.#end;
  }

  /** A varint as a signed 64-bit value (int32 and int64 fields encode negatives in ten bytes). */
  varint(): number {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      if (this.#pos >= this.#end) throw new WireError("a number runs past the end of the body");
      const b = this.#buf[this.#pos++]!;
      v |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return Number(BigInt.asIntN(64, v));
    }
    throw new WireError("a number is longer than ten bytes");
  }

  /** The next field's number and wire type, from its tag. */
  tag(): { readonly field: number; readonly wire: number } {
    const t = this.varint();
    if (t <= 0) throw new WireError(`a field tag is ${t}`);
    return { field: Math.floor(t / 8), wire: t & 7 };
  }

  bytes(): Uint8Array {
    const n = this.varint();
    if (n < 0 || this.#pos + n > this.#end) throw new WireError("a length-delimited field runs past its end");
    const out = this.#buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return out;
  }

  string(): string {
    return new TextDecoder("utf-8", { fatal: false }).decode(this.bytes());
  }

  /** Steps over a field's value of this wire type. */
  skip(wire: number): void {
    if (wire === WireType.varint) this.varint();
    else if (wire === WireType.bytes) this.bytes();
    else if (wire === WireType.fixed64 || wire === WireType.fixed32) {
      this.#pos += wire === WireType.fixed64 ? 8 : 4;
      if (this.#pos > this.#end) throw new WireError("a fixed-width field runs past the end of the body");
    } else throw new WireError(`wire type ${wire} is not one protobuf 3 writes`);
  }
}

/** A pseudo-random source in [0, 1). The cloud takes one so that a seed makes a run repeatable. */
export type Random = () => number;

/** A small, fast seeded generator (mulberry32): the same seed gives the same sequence on every run. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `length` lower-case hex digits drawn from `random`. */
export function randomHex(random: Random, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += Math.floor(random() * 16).toString(16);
  return out;
}

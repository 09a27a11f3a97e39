// One seeded generator for everything that must draw the same numbers from the same seed on every
// Node and machine: a batch's `--shuffle --seed` (batch/dataset-selection.ts) and the report's
// paired bootstrap (batch/paired-stats.ts).

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator, public domain): integer arithmetic only
 * (`Math.imul`, `>>>`), so a seed gives the same numbers on every engine; values in [0, 1).
 * Statistically fine for shuffling and resampling, not for secrets.
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

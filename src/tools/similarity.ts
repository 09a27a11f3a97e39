import { editDistance } from "../shared/edit-distance.ts";

/** Strings up to this long are compared by edit distance; longer ones by shared character pairs. */
const MAX_EDIT_DISTANCE_LENGTH = 32;

/**
 * How alike two strings are, from 0 to 1: one minus the edit distance (swaps count once) over the longer length
 * for short strings (file names), the Dice coefficient over character pairs for long ones
 * (lines), which is linear in their length so it can rank every line of a large file.
 */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length <= MAX_EDIT_DISTANCE_LENGTH && b.length <= MAX_EDIT_DISTANCE_LENGTH) {
    return 1 - editDistance(a, b) / Math.max(a.length, b.length);
  }
  return dice(a, b);
}

function dice(a: string, b: string): number {
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2);
    const count = pairs.get(pair) ?? 0;
    if (count > 0) {
      pairs.set(pair, count - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length - 1 + b.length - 1);
}

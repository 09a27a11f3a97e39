// Which tasks of a tasks file a batch runs, and in what order: `--shuffle --seed n`, then
// `--filter <regex>`, then `--slice a:b`. The order is mini-swe-agent's (its SWE-bench runner,
// src/minisweagent/run/extra/swebench.py `filter_instances`: shuffle, filter, slice), so
// `--shuffle --seed 1 --filter django --slice :50` is a random 50 of the django instances, the
// same 50 on every machine and Node version.

import { mulberry32 } from "../shared/seeded-random.ts";
import { TaskFileError } from "./batch-task.ts";

/** What to take from the tasks file; each part optional. */
interface DatasetSelection {
  /** Kept when the task's id (a SWE-bench `instance_id`) matches (JavaScript RegExp, unanchored, as grep). */
  filter?: RegExp;
  /** Python's `a:b`, without a step: either end may be empty or negative. */
  slice?: { start?: number; end?: number };
  /** The whole file shuffled first with this seed (mulberry32, shared/seeded-random.ts). */
  seed?: number;
}

/** A `--slice`, `--filter` or `--shuffle` that cannot be taken (exit 2, as a tasks file that cannot be run). */
export class SelectionError extends TaskFileError {
  override name = "SelectionError";
}

/** Reads `a:b` (`:10`, `10:`, `-5:`, `2:-2`) as Python's slice of a list does, without a step. */
function parseSlice(text: string): { start?: number; end?: number } {
  const match = /^(-?\d*):(-?\d*)$/.exec(text.trim());
  if (!match || match[1] === "-" || match[2] === "-")
    throw new SelectionError(`--slice takes a:b (whole numbers, either may be empty or negative), not "${text}"`);
  const end = (value: string) => (value === "" ? undefined : Number(value));
  return { start: end(match[1]), end: end(match[2]) };
}

/** Reads a `--filter` pattern; a bad one names the flag. */
function parseFilter(pattern: string): RegExp {
  try {
    return new RegExp(pattern);
  } catch (error) {
    throw new SelectionError(`--filter takes a regular expression: ${(error as Error).message}`);
  }
}

/** Fisher–Yates from the last item down, each swap partner drawn from mulberry32(seed). */
function shuffled<T>(items: T[], seed: number): T[] {
  const random = mulberry32(seed);
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other], copy[index]];
  }
  return copy;
}

/** Python's list[a:b] bounds: negative counts from the end, out of range is clamped. */
function sliceBounds(length: number, slice: { start?: number; end?: number }): [number, number] {
  const bound = (value: number | undefined, fallback: number) =>
    value === undefined ? fallback : value < 0 ? Math.max(0, length + value) : Math.min(length, value);
  return [bound(slice.start, 0), bound(slice.end, length)];
}

/** The tasks the selection takes, in the order they run (the file's, unless shuffled). */
export function selectTasks<T extends { id: string }>(tasks: T[], selection: DatasetSelection): T[] {
  let chosen = selection.seed === undefined ? tasks : shuffled(tasks, selection.seed);
  const { filter } = selection;
  if (filter) chosen = chosen.filter((task) => filter.test(task.id));
  if (selection.slice) chosen = chosen.slice(...sliceBounds(chosen.length, selection.slice));
  return chosen;
}

/** The selection `--filter`, `--slice`, `--shuffle` and `--seed` ask for; a wrong combination is a SelectionError. */
export function selectionOf(flags: {
  filter?: string;
  slice?: string;
  shuffle?: boolean;
  seed?: number;
}): DatasetSelection {
  // *Decision*: no hidden default seed: a shuffle that cannot be repeated is no sample to publish.
  if (flags.shuffle && flags.seed === undefined)
    throw new SelectionError("--shuffle needs --seed <n>, so the same order can be drawn again");
  if (!flags.shuffle && flags.seed !== undefined) throw new SelectionError("--seed is for --shuffle; give both");
  return {
    ...(flags.filter !== undefined ? { filter: parseFilter(flags.filter) } : {}),
    ...(flags.slice !== undefined ? { slice: parseSlice(flags.slice) } : {}),
    ...(flags.shuffle ? { seed: flags.seed } : {}),
  };
}

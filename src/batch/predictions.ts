// The patches a run produced, as SWE-bench's evaluation harness reads them: a JSONL file of
// `{instance_id, model_name_or_path, model_patch}`, one file per run beside the results file
// (`results.predictions.<run id>.jsonl`). *Decision*: one file per run rather than one file of
// every run: SWE-bench keys predictions by `instance_id`, so two models' patches of one instance
// cannot share a file, and a second model on the same `--out` must not overwrite the first's.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { TaskResult } from "./task-result.ts";

/** One line of a predictions file. */
interface Prediction {
  instance_id: string;
  model_name_or_path: string;
  model_patch: string;
}

/**
 * `results.jsonl` → `results.predictions.<run id>.jsonl`; without a run id (results written before
 * runs had ids, which the report reads as run "-") the one file older versions wrote,
 * `results.predictions.jsonl`.
 */
export function predictionsPathOf(outPath: string, runId?: string): string {
  const base = `${outPath.replace(/\.jsonl$/, "")}.predictions`;
  return runId && runId !== "-" ? `${base}.${runId}.jsonl` : `${base}.jsonl`;
}

/**
 * Writes (replaces) the predictions of one run's final results and returns the file's path. A
 * task without a diff (a `cwd` task, or nothing changed) has an empty patch: SWE-bench counts it
 * as not resolved rather than missing. Only this run's file is written: other runs' stay.
 */
export function writePredictions(outPath: string, runId: string, results: TaskResult[]): string {
  const path = predictionsPathOf(outPath, runId);
  const lines = results.map((result) =>
    JSON.stringify({
      instance_id: result.id,
      model_name_or_path: result.model ?? "unknown",
      model_patch: result.diff ?? "",
    } satisfies Prediction),
  );
  writeFileSync(path, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  return path;
}

/**
 * A run's predictions: its own file, else (a run of an older version, whose batch wrote one file
 * for whichever run ran last) `results.predictions.jsonl`. Empty when neither exists; a torn or
 * foreign line is skipped.
 */
export function readPredictions(outPath: string, runId?: string): Prediction[] {
  const own = predictionsPathOf(outPath, runId);
  const path = existsSync(own) ? own : predictionsPathOf(outPath);
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .flatMap((line) => {
      try {
        const value = JSON.parse(line) as Partial<Prediction>;
        return typeof value?.instance_id === "string" && typeof value.model_patch === "string"
          ? [value as Prediction]
          : [];
      } catch {
        return [];
      }
    });
}

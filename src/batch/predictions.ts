// The patches a run produced, as SWE-bench's evaluation harness reads them: a JSONL file of
// `{instance_id, model_name_or_path, model_patch}`, beside the results file.
import { writeFileSync } from "node:fs";
import type { TaskResult } from "./task-result.ts";

/** `results.jsonl` → `results.predictions.jsonl`. */
export function predictionsPathOf(outPath: string): string {
  return `${outPath.replace(/\.jsonl$/, "")}.predictions.jsonl`;
}

/**
 * Writes (replaces) the predictions of one run's final results and returns the file's path. A
 * task without a diff (a `cwd` task, or nothing changed) has an empty patch: SWE-bench counts it
 * as not resolved rather than missing.
 */
export function writePredictions(outPath: string, results: TaskResult[]): string {
  const path = predictionsPathOf(outPath);
  const lines = results.map((result) =>
    JSON.stringify({
      instance_id: result.id,
      model_name_or_path: result.model ?? "unknown",
      model_patch: result.diff ?? "",
    }),
  );
  writeFileSync(path, lines.length > 0 ? `${lines.join("\n")}\n` : "");
  return path;
}

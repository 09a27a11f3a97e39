// What the batch tests read: a task's prompt in a request to the fake server, and results files.
import { existsSync, readFileSync } from "node:fs";
import type { TaskResult } from "../src/batch/task-result.ts";
import type { RecordedRequest } from "./fake-llm/server.ts";

/** The user prompt of a chat completions request: the task's prompt. */
export function promptOf(request: RecordedRequest): string {
  const user = request.body.messages.find((message: { role: string }) => message.role === "user");
  return typeof user.content === "string"
    ? user.content
    : user.content.map((part: { text?: string }) => part.text ?? "").join("");
}

/** The whole lines of a results file (none when it does not exist yet). */
export function readLines(path: string): TaskResult[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.endsWith("}"))
    .map((line) => JSON.parse(line));
}

import type { ApprovalRequest } from "../core/run-tools.ts";
import { previewEdit } from "./edit-file.ts";
import { previewWrite } from "./write-file.ts";

/**
 * The diff a file-editing call would make, computed with the tool's own logic before it runs,
 * so the approval question can show it; undefined for other tools or when it cannot be computed.
 */
export async function previewChange(
  request: Pick<ApprovalRequest, "tool" | "input">,
  cwd: string,
): Promise<string | undefined> {
  switch (request.tool.name) {
    case "edit_file":
      return previewEdit(request.input as Parameters<typeof previewEdit>[0], cwd);
    case "write_file":
      return previewWrite(request.input as Parameters<typeof previewWrite>[0], cwd);
    default:
      return undefined;
  }
}

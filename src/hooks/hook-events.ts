// Every hook event's record, by name, as wire APIs are one record each (providers/wire-apis.ts):
// the runner (command-hooks.ts), the hooks page's table and test/unit/hook-event-records.test.ts read it.
import type { HookEventName } from "../settings/hook-section.ts";
import {
  notification,
  preCompact,
  sessionEnd,
  sessionStart,
  stop,
  subagentStart,
  subagentStop,
  userPromptSubmit,
} from "./session-hook-events.ts";
import { permissionRequest, postToolUse, postToolUseFailure, preToolUse } from "./tool-hook-events.ts";

export const HOOK_EVENT_RECORDS = {
  PreToolUse: preToolUse,
  PostToolUse: postToolUse,
  UserPromptSubmit: userPromptSubmit,
  SessionStart: sessionStart,
  Stop: stop,
  SessionEnd: sessionEnd,
  Notification: notification,
  PreCompact: preCompact,
  PostToolUseFailure: postToolUseFailure,
  SubagentStart: subagentStart,
  SubagentStop: subagentStop,
  PermissionRequest: permissionRequest,
} satisfies Record<HookEventName, { name: HookEventName; when: string; exit2: string; answers: string }>;

// ACP's session modes (https://agentclientprotocol.com/protocol/v1/session-modes) are harness's
// approval modes: the editor lists them with the session, switches with `session/set_mode`, and
// hears `current_mode_update` when the session switches itself (plan mode ending).
import { RequestError, type SessionMode, type SessionModeState } from "@agentclientprotocol/sdk";

/** A hosted session's approval mode (permissions/approval-mode.ts), as the server sees it. */
export interface HostedModes {
  readonly current: string;
  /** The mode a plan is carried out in (the one before plan mode). */
  readonly afterPlan: string;
  set(id: string): void;
  /** Calls `listener` on each change until the returned function is called. */
  onChange(listener: (id: string) => void): () => void;
}

/**
 * The modes an editor may choose. *Decision*: not `all` (--yes): `harness acp` takes no --yes
 * either, and the editor is there to answer the questions `all` would skip.
 */
const EDITOR_MODES: SessionMode[] = [
  { id: "ask", name: "Ask", description: "Reads run; edits and commands ask." },
  { id: "edits", name: "Accept edits", description: "Edits inside the workspace run too; commands ask." },
  {
    id: "plan",
    name: "Plan",
    description:
      "Nothing changes: reads, searches and fetches run, commands run in a read-only sandbox, edits are refused.",
  },
];

/** The mode list a new or loaded session answers with; none for a host without modes. */
export function modeState(modes: HostedModes | undefined): { modes?: SessionModeState } {
  if (!modes) return {};
  return { modes: { currentModeId: modes.current, availableModes: EDITOR_MODES } };
}

/** `session/set_mode`: one of the listed modes, or an invalid-params error naming them. */
export function setMode(
  session: { modes?: HostedModes } | undefined,
  sessionId: string,
  modeId: string,
): Record<string, never> {
  if (!session) throw RequestError.sessionNotFound(sessionId);
  const modes = session.modes;
  if (!modes) throw RequestError.invalidParams(undefined, "this session has no modes");
  if (!EDITOR_MODES.some((mode) => mode.id === modeId))
    throw RequestError.invalidParams(
      undefined,
      `no mode "${modeId.slice(0, 80)}"; the modes are ${EDITOR_MODES.map((mode) => mode.id).join(", ")}`,
    );
  modes.set(modeId);
  return {};
}

/** Tells the editor of every switch of the session's mode (`current_mode_update`), its own requests included. */
export function announceModes(
  session: { modes?: HostedModes },
  notify: (update: { sessionUpdate: "current_mode_update"; currentModeId: string }) => Promise<void> | undefined,
): void {
  session.modes?.onChange((id) => {
    notify({ sessionUpdate: "current_mode_update", currentModeId: id })?.catch(() => undefined);
  });
}

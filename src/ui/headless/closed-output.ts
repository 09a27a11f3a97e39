/**
 * Exit status of a run whose reader closed stdout early (`harness ... | head -1`): 128 + SIGPIPE,
 * what a shell reports for Unix tools that the closed pipe ended.
 */
export const CLOSED_OUTPUT_EXIT = 141;

/**
 * Calls `onClose` once when the reader of `stream` has gone away (EPIPE), instead of Node's
 * unhandled `error` event and its stack trace. Any other write error is still thrown.
 */
export function onOutputClosed(stream: NodeJS.WritableStream, onClose: () => void): void {
  let isClosed = false;
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE" && error.code !== "ERR_STREAM_DESTROYED") throw error;
    if (isClosed) return;
    isClosed = true;
    onClose();
  });
}

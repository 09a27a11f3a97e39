// Where a server's program is: a path as given, the workspace's node_modules/.bin, or PATH.
import { accessSync, constants } from "node:fs";
import path from "node:path";

/**
 * The program for `command`: a path as given; else the workspace's node_modules/.bin (only in a
 * trusted folder: it is the project's code), else PATH.
 */
export function findProgram(
  command: string,
  root: string,
  env: Record<string, string | undefined>,
  isProjectTrusted: boolean,
): string | undefined {
  if (command.includes("/")) return isExecutable(path.resolve(root, command)) ? path.resolve(root, command) : undefined;
  const places = [
    ...(isProjectTrusted ? [path.join(root, "node_modules", ".bin")] : []),
    ...(env.PATH ?? "").split(path.delimiter).filter(Boolean),
  ];
  return places.map((place) => path.join(place, command)).find(isExecutable);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

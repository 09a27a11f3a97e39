import type { Tool } from "../core/tool.ts";
import { editFile } from "./edit-file.ts";
import { glob } from "./glob.ts";
import { grep } from "./grep.ts";
import { listFiles } from "./list-files.ts";
import { readFile } from "./read-file.ts";
import { writeFile } from "./write-file.ts";

/** The file tools, in the order the model sees them. */
export const fileTools: Tool[] = [readFile, writeFile, editFile, listFiles, grep, glob];

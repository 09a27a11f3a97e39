/** Lines of unchanged text shown around each change. */
const CONTEXT_LINES = 3;
/** Beyond this many differing lines the changed middle is shown as one removal and one addition. */
const MAX_EDIT_DISTANCE = 2000;

type Op = { kind: " " | "-" | "+"; line: Line };
type Line = { text: string; hasNewline: boolean };

/**
 * A unified diff (`---`/`+++` headers, `@@` hunks, 3 lines of context) between two texts;
 * empty when they are equal. `before` undefined means the file is new.
 */
export function unifiedDiff(before: string | undefined, after: string, file: string): string {
  if (before === after) return "";
  const ops = diffLines(toLines(before ?? ""), toLines(after));
  const header = `--- ${before === undefined ? "/dev/null" : `a/${file}`}\n+++ b/${file}\n`;
  return header + toHunks(ops).join("");
}

function toLines(text: string): Line[] {
  if (text === "") return [];
  const parts = text.split("\n");
  const hasFinalNewline = parts[parts.length - 1] === "";
  if (hasFinalNewline) parts.pop();
  return parts.map((part, index) => ({
    text: part.replace(/\r$/, ""),
    hasNewline: index < parts.length - 1 || hasFinalNewline,
  }));
}

function same(a: Line, b: Line): boolean {
  return a.text === b.text && a.hasNewline === b.hasNewline;
}

/** Myers' O(ND) diff after trimming the common head and tail. */
function diffLines(a: Line[], b: Line[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && same(a[head], b[head])) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && same(a[a.length - 1 - tail], b[b.length - 1 - tail]))
    tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line): Op => ({ kind: "-", line })),
    ...middleB.map((line): Op => ({ kind: "+", line })),
  ];
  return [
    ...a.slice(0, head).map((line): Op => ({ kind: " ", line })),
    ...middle,
    ...a.slice(a.length - tail).map((line): Op => ({ kind: " ", line })),
  ];
}

function myers(a: Line[], b: Line[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const maxD = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = maxD + 1;
  const v = new Int32Array(2 * offset + 1);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && same(a[x], b[y])) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, offset);
    }
  }
  return undefined;
}

function backtrack(a: Line[], b: Line[], trace: Int32Array[], offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d];
    const k = x - y;
    let previousX = 0;
    let previousY = 0;
    if (d > 0) {
      const previousK = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? k + 1 : k - 1;
      previousX = v[offset + previousK];
      previousY = previousX - previousK;
    }
    while (x > previousX && y > previousY) {
      ops.push({ kind: " ", line: a[--x] });
      y--;
    }
    if (d > 0) {
      if (x === previousX) ops.push({ kind: "+", line: b[--y] });
      else ops.push({ kind: "-", line: a[--x] });
    }
  }
  return ops.reverse();
}

function toHunks(ops: Op[]): string[] {
  const hunks: string[] = [];
  let index = 0;
  let oldLine = 1;
  let newLine = 1;
  while (index < ops.length) {
    const firstChange = ops.findIndex((op, i) => i >= index && op.kind !== " ");
    if (firstChange === -1) break;
    const start = Math.max(index, firstChange - CONTEXT_LINES);
    for (let i = index; i < start; i++) {
      oldLine++;
      newLine++;
    }
    let end = firstChange;
    let unchangedRun = 0;
    for (let i = firstChange; i < ops.length; i++) {
      if (ops[i].kind === " ") unchangedRun++;
      else unchangedRun = 0;
      if (unchangedRun > 2 * CONTEXT_LINES) break;
      end = i + 1;
    }
    while (end > firstChange && ops[end - 1].kind === " " && countTrailingUnchanged(ops, end) > CONTEXT_LINES) end--;
    const body = ops.slice(start, end);
    const oldCount = body.filter((op) => op.kind !== "+").length;
    const newCount = body.filter((op) => op.kind !== "-").length;
    const lines = body.map(
      (op) => `${op.kind}${op.line.text}\n${op.line.hasNewline ? "" : "\\ No newline at end of file\n"}`,
    );
    hunks.push(`@@ -${rangeOf(oldLine, oldCount)} +${rangeOf(newLine, newCount)} @@\n${lines.join("")}`);
    oldLine += oldCount;
    newLine += newCount;
    index = end;
  }
  return hunks;
}

function countTrailingUnchanged(ops: Op[], end: number): number {
  let count = 0;
  for (let i = end - 1; i >= 0 && ops[i].kind === " "; i--) count++;
  return count;
}

function rangeOf(start: number, count: number): string {
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

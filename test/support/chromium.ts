// A page harness wrote, opened from disk in headless Chromium (Debian's `chromium`; .ci/run
// installs it; tests skip with needs("chromium") without it), with every request it makes and
// every script error it raises recorded.
import { execFileSync } from "node:child_process";
import { pathToFileURL } from "node:url";
import type { Page } from "playwright-core";

export interface OpenedPage {
  page: Page;
  url: string;
  /** Every URL the page asked for, itself first. */
  requests: string[];
  pageErrors: string[];
  /** What the console said (a Content-Security-Policy refusal is said there). */
  console: string[];
}

/** Runs `use` with `file` (or an http(s) address) open in a fresh headless Chromium, closed afterwards. */
export async function withPageInChromium<T>(file: string, use: (opened: OpenedPage) => Promise<T>): Promise<T> {
  const executablePath = execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim();
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  try {
    const page = await browser.newPage();
    const opened: OpenedPage = {
      page,
      url: /^https?:/.test(file) ? file : pathToFileURL(file).href,
      requests: [],
      pageErrors: [],
      console: [],
    };
    page.on("request", (request) => opened.requests.push(request.url()));
    page.on("pageerror", (error) => opened.pageErrors.push(error.message));
    page.on("console", (message) => opened.console.push(message.text()));
    page.on("dialog", (dialog) => {
      opened.pageErrors.push(`a dialog opened: ${dialog.message()}`);
      void dialog.dismiss();
    });
    await page.goto(opened.url);
    return await use(opened);
  } finally {
    await browser.close();
  }
}

declare const __HARNESS_VERSION__: string | undefined;

/** Set at build time from package.json; "dev" when running from source. */
export const VERSION: string = typeof __HARNESS_VERSION__ === "string" ? __HARNESS_VERSION__ : "dev";

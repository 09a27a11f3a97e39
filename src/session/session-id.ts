import { randomBytes } from "node:crypto";

/** Base-36 digits of the millisecond clock: 8 of them last until the year 2059. */
const TIME_DIGITS = 8;
const RANDOM_DIGITS = 4;

/**
 * A short session id that sorts by creation time as plain text: base-36 milliseconds, then
 * random digits so two sessions started in the same millisecond still differ (`m4x7k2qa-3f9z`).
 */
export function newSessionId(now: number = Date.now()): string {
  const time = now.toString(36).padStart(TIME_DIGITS, "0");
  let random = "";
  for (const byte of randomBytes(RANDOM_DIGITS)) random += (byte % 36).toString(36);
  return `${time}-${random}`;
}

/** What a session id looks like; anything else in the sessions folder is not a session. */
export const SESSION_ID_PATTERN = /^[0-9a-z]{8,}-[0-9a-z]{4}$/;

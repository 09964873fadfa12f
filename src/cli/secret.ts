/**
 * `authchart secret`: a fresh `AUTH_SECRET`, 32 random bytes as base64url (43 characters; authchart
 * requires at least 32), like Auth.js's `npx auth secret`. The line goes to stdout (so it can be
 * appended to a file), the hint to stderr.
 */
import { randomBytes } from "node:crypto"
import { parseOptions } from "./args.js"

export const SECRET_USAGE = `Usage: authchart secret [--raw]

  prints AUTH_SECRET="<random>" (32 random bytes, base64url); --raw prints the value alone`

/** A new random secret: 32 bytes as base64url. */
export function newSecret(): string {
  return randomBytes(32).toString("base64url")
}

export function secretCommand(args: string[]): number {
  const values = parseOptions(
    args,
    { raw: { type: "boolean", default: false }, help: { type: "boolean", short: "h", default: false } },
    SECRET_USAGE,
  )
  if (values.help) {
    console.log(SECRET_USAGE)
    return 0
  }
  const secret = newSecret()
  if (values.raw) {
    console.log(secret)
    return 0
  }
  console.log(`AUTH_SECRET="${secret}"`)
  console.error(
    [
      "",
      "Add this line to your .env file (or your host's environment settings) and keep it out of version control.",
      "To rotate later without signing everyone out: put the new secret in AUTH_SECRET_1 and keep the old one in",
      "AUTH_SECRET until the old sessions have expired (the newest secret signs, all of them are accepted).",
    ].join("\n"),
  )
  return 0
}

/**
 * `GET <basePath>/webauthn-script`: the browser side of passkeys, served by authchart itself (no CDN,
 * works offline): `@simplewebauthn/browser`'s UMD bundle from the app's node_modules, then the sign-in
 * page's own script. Same bytes for every app and request; browsers may cache it for a day.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import type { Handled, RequestContext } from "../http/context.js"
import { WEBAUTHN_CLIENT_SCRIPT } from "../http/pages/webauthn-client.js"

let script: string | undefined

/**
 * The bundle file of the installed `@simplewebauthn/browser`. Its `package.json` is not exported, so
 * the main entry (`<package>/script/index.js`) is resolved and the package root taken from it.
 */
function browserBundle(): string {
  let entry: string
  try {
    entry = createRequire(import.meta.url).resolve("@simplewebauthn/browser")
  } catch (error) {
    throw new Error(
      'The passkey sign-in page serves the "@simplewebauthn/browser" bundle, which could not be found: ' +
        "npm install @simplewebauthn/browser",
      { cause: error },
    )
  }
  const bundle = readFileSync(join(dirname(dirname(entry)), "dist", "bundle", "index.umd.min.js"), "utf8")
  return bundle.replace(/^\/\/# sourceMappingURL=.*$/gm, "")
}

/** The served script: the bundle (global `SimpleWebAuthnBrowser`) and the page script. */
export function webauthnScriptSource(): string {
  script ??= `${browserBundle()}\n${WEBAUTHN_CLIENT_SCRIPT}`
  return script
}

/** Served only when a WebAuthn provider is configured (404 otherwise). */
export async function webauthnScript(ctx: RequestContext): Promise<Handled> {
  const enabled = [...ctx.config.providers.values()].some((p) => p.type === "webauthn")
  if (!enabled) return { response: { status: 404, headers: { "Content-Type": "text/plain" }, body: "Not found" } }
  return {
    response: {
      status: 200,
      headers: {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "public, max-age=86400",
        "X-Content-Type-Options": "nosniff",
      },
      body: webauthnScriptSource(),
    },
  }
}

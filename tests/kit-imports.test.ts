/**
 * The built-in flows are written with the public kit: the flow table (src/runtime/engine/built-in-flows.ts), their
 * machines and the effects they use import nothing internal that `authchart/flow` does not export (or
 * another public module, or one another). So does the repository's own resting test flow.
 */
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { repoRoot } from "./support/packed.js"
import { kitNames, refusal, refusedImports } from "./support/kit-imports.js"

/** The built-in flows' own files: what they may import from one another. */
const builtIn = [
  "src/runtime/engine/built-in-flows.ts",
  "src/machines/credentials.ts",
  "src/machines/email.ts",
  "src/machines/oauth.ts",
  "src/machines/webauthn.ts",
  "src/runtime/engine/effects/credentials.ts",
  "src/runtime/engine/effects/email.ts",
  "src/runtime/engine/effects/oauth.ts",
  "src/runtime/engine/effects/oauth-authorize.ts",
  "src/runtime/engine/effects/oauth-profile.ts",
  "src/runtime/oauth/server.ts",
  "src/runtime/oauth/fetch.ts",
  "src/runtime/engine/effects/oauth-token.ts",
  "src/runtime/engine/effects/webauthn.ts",
  "src/runtime/engine/effects/webauthn-support.ts",
  "src/runtime/engine/effects/webauthn-response.ts",
  "src/runtime/engine/effects/webauthn-verify.ts",
  "src/runtime/engine/effects/redirect-proxy.ts",
  "src/runtime/http/pages/blocks.ts",
  "src/runtime/oauth/form-targets.ts",
  "src/runtime/http/pages/webauthn-client.ts",
]
const own = (target: string) => builtIn.includes(target)

describe("the built-in flows import only the kit, public modules and one another", () => {
  it.each(builtIn)("%s", (path) => {
    expect(refusedImports(join(repoRoot, path), own)).toEqual([])
  })

  it("tests/support/confirm-flow.ts (an application's flow) too", () => {
    expect(refusedImports(join(repoRoot, "tests/support/confirm-flow.ts"), () => false)).toEqual([])
  })

  it("the check refuses an internal name, accepts one the kit re-exports", () => {
    const file = join(repoRoot, "src/machines/oauth.ts")
    expect(kitNames.has("signInTail")).toBe(true)
    expect(refusal(file, { specifier: "./setup.js", names: ["signInTail", "flowBase"] }, own)).toBeNull()
    expect(refusal(file, { specifier: "../runtime/sessions/session.js", names: ["sessionStrategy"] }, own)).toBe(
      "../runtime/sessions/session.js (src/runtime/sessions/session.ts): sessionStrategy not in the kit",
    )
    expect(refusal(file, { specifier: "../runtime/http/csrf.js", names: ["*"] }, own)).toBe(
      "../runtime/http/csrf.js (src/runtime/http/csrf.ts): * not in the kit",
    )
  })
})

/**
 * The config markers `skipCSRFCheck` and `raw` exported by `@auth/core` work in an authchart config as
 * authchart's own do (as `customFetch`'s already did): an app mid-migration, or a test setup, that
 * still imports them from Auth.js gets the behaviour it asked for, not CSRF checks it turned off or a
 * `Response` where the types promise the internal object.
 */
import { raw as authJsRaw, skipCSRFCheck as authJsSkipCSRFCheck } from "@auth/core"
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig, raw, skipCSRFCheck } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { ORIGIN, SECRET } from "./helpers.js"

const base = { secret: SECRET, trustHost: true, providers: [Credentials({ authorize: async () => ({ id: "u1", name: "Ann" }) })] }

describe.each([
  ["authchart's", { skipCSRFCheck, raw }],
  ["@auth/core's", { skipCSRFCheck: authJsSkipCSRFCheck, raw: authJsRaw }],
])("%s markers", (_, markers) => {
  it("skipCSRFCheck: /csrf answers 404 and a credentials sign-in needs no token", async () => {
    const config: AuthConfig = { ...base, skipCSRFCheck: markers.skipCSRFCheck, logger: { warn: () => {} } }
    expect((await Auth(new Request(`${ORIGIN}/auth/csrf`), config)).status).toBe(404)
    const signIn = await Auth(
      new Request(`${ORIGIN}/auth/callback/credentials`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ callbackUrl: "/dash" }),
      }),
      config,
    )
    expect(signIn.headers.get("location")).toBe(`${ORIGIN}/dash`)
  })

  it("raw: Auth returns the internal response object", async () => {
    const internal = await Auth(new Request(`${ORIGIN}/auth/providers`), { ...base, raw: markers.raw })
    expect(internal).not.toBeInstanceOf(Response)
    expect(internal).toMatchObject({ status: 200, body: { credentials: { id: "credentials" } } })
  })
})

it("a symbol that merely shares the description but is registered (Symbol.for) is not a marker", async () => {
  const response = await Auth(new Request(`${ORIGIN}/auth/csrf`), { ...base, skipCSRFCheck: Symbol.for("skip-csrf-check") })
  expect(response.status).toBe(200)
})

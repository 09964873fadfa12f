/**
 * Attack class: PKCE downgrade and authorization parameter injection (RFC 9700 §2.1.1, §4.1, §4.8). The
 * sign-in request (`POST /signin/:id`) may carry extra authorization parameters in its query string
 * (Auth.js passes all of them through). An attacker-crafted sign-in link must not be able to choose
 * where the code goes (`redirect_uri`), which client or response type is used, the `state`, `nonce`,
 * the PKCE challenge or its method (`plain`), or the response mode; allow-listed ones (`prompt`,
 * `login_hint`, …) still pass. Checked on the authorization URL we build and at a real provider.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { OidcServer } from "../support/oidc-provider.js"
import { OTHER_CLIENT, ORIGIN, answerUrl, beginSignIn, browser, deliver, oidcAt, sessionOf, startIdp } from "./support.js"

let idp: OidcServer
beforeAll(async () => {
  idp = await startIdp(["idp"], {
    extra: [{ client_id: "evil", client_secret: "evil-secret-0123456789", redirect_uris: ["https://evil.test/cb"] }],
  })
})
afterAll(() => idp?.stop())

const KNOWN_VERIFIER = "attacker-known-verifier-0123456789-0123456789"

/** Each parameter an attacker would like to choose, and the value tried. */
const injections: Array<[string, string]> = [
  ["redirect_uri", "https://evil.test/cb"],
  ["state", "attacker-fixed-state"],
  ["code_challenge", KNOWN_VERIFIER],
  ["code_challenge_method", "plain"],
  ["response_type", "token"],
  ["client_id", OTHER_CLIENT.id],
  ["nonce", "attacker-fixed-nonce"],
  ["response_mode", "fragment"],
  ["request_uri", "https://evil.test/request.jwt"],
  ["request", "eyJhbGciOiJub25lIn0.eyJyZWRpcmVjdF91cmkiOiJodHRwczovL2V2aWwudGVzdC9jYiJ9."],
  ["code_verifier", KNOWN_VERIFIER],
  ["unknown_param", "x"],
]

describe("PKCE downgrade and parameter injection on /signin/:id", () => {
  it.each(injections)("parameter injection: %s=%s in the sign-in query cannot override the request", async (name, value) => {
    const { client } = browser([oidcAt(idp, "idp")])
    const url = await beginSignIn(client, "idp", {}, `?${new URLSearchParams({ [name]: value })}`)
    expect(url.searchParams.getAll(name)).not.toContain(value)
    expect(url.searchParams.get("redirect_uri")).toBe(`${ORIGIN}/auth/callback/idp`)
    expect(url.searchParams.get("client_id")).toBe("basic-client")
    expect(url.searchParams.get("response_type")).toBe("code")
    expect(url.searchParams.get("code_challenge_method")).toBe("S256")
    expect(url.searchParams.get("code_challenge")).toMatch(/^[\w-]{43}$/)
    expect(url.searchParams.has("code_verifier")).toBe(false)
    expect(url.searchParams.getAll("state")).toHaveLength(1)
  })

  it("parameter injection: the same parameters in the form body are ignored too", async () => {
    const { client } = browser([oidcAt(idp, "idp")])
    const url = await beginSignIn(client, "idp", Object.fromEntries(injections))
    for (const [name, value] of injections) expect(url.searchParams.getAll(name)).not.toContain(value)
  })

  it("PKCE downgrade: with code_challenge_method=plain and a known challenge injected, the flow still signs in with S256", async () => {
    const { client } = browser([oidcAt(idp, "idp")])
    const query = `?${new URLSearchParams({ code_challenge_method: "plain", code_challenge: KNOWN_VERIFIER })}`
    const url = await beginSignIn(client, "idp", {}, query)
    const res = await deliver(client, answerUrl(await idp.authorize(url.href)))
    expect(res.headers.get("location")).toBe(ORIGIN)
    expect(idp.tokenRequests.lastBody.code_verifier).not.toBe(KNOWN_VERIFIER)
    expect((await sessionOf(client))?.user.email).toBe("alice@example.test")
  })

  it("allow-listed parameters still reach the provider (prompt, login_hint, ui_locales)", async () => {
    const { client } = browser([oidcAt(idp, "idp")])
    const url = await beginSignIn(client, "idp", {}, "?prompt=login&login_hint=bob%40example.test&ui_locales=de")
    expect(url.searchParams.get("prompt")).toBe("login")
    expect(url.searchParams.get("login_hint")).toBe("bob@example.test")
    expect(url.searchParams.get("ui_locales")).toBe("de")
  })
})

/**
 * Attack class: tampered session tokens. The JWT session cookie is an Auth.js JWE (`dir`,
 * A256CBC-HS512, key = HKDF(secret, salt = cookie name)). A token edited in any part (a CBC bit-flip
 * on the IV that renames the user, another key, `alg: none`, another `enc` or `kid`, a token sealed
 * for another cookie) and a chunked token whose chunks are reordered, dropped, extended or renamed all
 * read as "no session": 200 `null` and a `JWTSessionError` in the log, never a 500, never another user.
 */
import { describe, expect, it } from "vitest"
import { encode } from "../../src/jwt.js"
import Credentials from "../../src/providers/credentials.js"
import { setCookies } from "../helpers.js"
import { SECRET, browser, errorTypes, sessionOf } from "./support.js"

const NAME = "authjs.session-token"
const b64 = (value: string | Buffer) => Buffer.from(value).toString("base64url")

/** A config whose `jwt` callback can make the token large (chunked). */
function site(padding = 0) {
  const anyone = Credentials({
    credentials: { username: {} },
    authorize: ({ username }) => ({ id: `u-${String(username)}`, name: String(username) }),
  })
  return browser([anyone], { callbacks: { jwt: ({ token }) => (padding ? { ...token, padding: "x".repeat(padding) } : token) } })
}

/** GET /session with exactly `cookies` (and nothing else): the body and the response. */
async function sessionWith(cookies: Record<string, string>, padding = 0) {
  const { client, log } = site(padding)
  for (const [name, value] of Object.entries(cookies)) client.jar.cookies.set(name, value)
  const res = await client.send("/auth/session")
  expect(res.status).toBe(200)
  return { body: (await res.json()) as { user: { name: string } } | null, res, log }
}

async function expectNoSession(cookies: Record<string, string>, padding = 0) {
  const { body, res, log } = await sessionWith(cookies, padding)
  expect(body).toBeNull()
  expect(errorTypes(log)).toEqual(["JWTSessionError"])
  // every cookie part the browser sent is cleared
  const cleared = setCookies(res)
    .filter((c) => c.attributes["max-age"] === "0")
    .map((c) => c.name)
  expect(cleared.sort()).toEqual(
    Object.keys(cookies)
      .filter((n) => n === NAME || n.startsWith(`${NAME}.`))
      .sort(),
  )
}

const token = (payload: Record<string, unknown>, options: { secret?: string; salt?: string } = {}) =>
  encode({ token: payload, secret: options.secret ?? SECRET, salt: options.salt ?? NAME })

describe("tampered session tokens", () => {
  it("baseline: an untouched token is Ada's session", async () => {
    expect((await sessionWith({ [NAME]: await token({ name: "Ada", sub: "u1" }) })).body?.user.name).toBe("Ada")
  })

  it("tampered token: a CBC bit-flip on the IV that would rename Ada to Eve is refused by the tag", async () => {
    const parts = (await token({ name: "Ada", sub: "u1" })).split(".")
    const iv = Buffer.from(parts[2] as string, "base64url")
    // plaintext block 1 is `{"name":"Ada","s`: XOR the IV where "Ada" sits with "Ada" ^ "Eve"
    for (let i = 0; i < 3; i++) iv[9 + i] = (iv[9 + i] as number) ^ "Ada".charCodeAt(i) ^ "Eve".charCodeAt(i)
    parts[2] = iv.toString("base64url")
    await expectNoSession({ [NAME]: parts.join(".") })
  })

  it.each([
    [
      "a token sealed with another secret (alg dir, wrong key)",
      () => token({ name: "Eve", sub: "u1" }, { secret: "the-attackers-secret-0123456789-abcdef" }),
    ],
    ["a token sealed for another cookie (salt)", () => token({ name: "Eve", sub: "u1" }, { salt: "authchart.flow.credentials" })],
    ["a token sealed for the __Secure- cookie name", () => token({ name: "Eve", sub: "u1" }, { salt: `__Secure-${NAME}` })],
  ])("tampered token: %s", async (_, make) => {
    await expectNoSession({ [NAME]: await make() })
  })

  it.each([
    ["alg none, JWS-shaped", async () => `${b64('{"alg":"none","typ":"JWT"}')}.${b64('{"name":"Eve","sub":"u1"}')}.`],
    [
      "alg none in a JWE header",
      async () => {
        const parts = (await token({ name: "Eve" })).split(".")
        return [b64('{"alg":"none","enc":"A256CBC-HS512"}'), ...parts.slice(1)].join(".")
      },
    ],
    [
      "alg dir with enc switched to A256GCM",
      async () => {
        const parts = (await token({ name: "Eve" })).split(".")
        const header = JSON.parse(Buffer.from(parts[0] as string, "base64url").toString()) as Record<string, string>
        return [b64(JSON.stringify({ ...header, enc: "A256GCM" })), ...parts.slice(1)].join(".")
      },
    ],
    [
      "another kid",
      async () => {
        const parts = (await token({ name: "Eve" })).split(".")
        return [b64(JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid: "attacker" })), ...parts.slice(1)].join(".")
      },
    ],
    [
      "no kid, no tag",
      async () => {
        const parts = (await token({ name: "Eve" })).split(".")
        return [b64('{"alg":"dir","enc":"A256CBC-HS512"}'), parts[1], parts[2], parts[3], ""].join(".")
      },
    ],
    [
      "an encrypted key where dir has none",
      async () => {
        const parts = (await token({ name: "Eve" })).split(".")
        return [parts[0], b64("k".repeat(32)), ...parts.slice(2)].join(".")
      },
    ],
    ["a truncated token", async () => (await token({ name: "Eve" })).slice(0, -10)],
    ["six parts", async () => `${await token({ name: "Eve" })}.x`],
    ["garbage", async () => "not-a-token"],
    ["20 kB of garbage", async () => "A.".repeat(10_000)],
    ["an expired token", async () => encode({ token: { name: "Ada" }, secret: SECRET, salt: NAME, maxAge: -3600 })],
  ])("alg:none / header tricks: %s", async (_, make) => {
    await expectNoSession({ [NAME]: await make() })
  })
})

describe("chunk tricks", () => {
  /** A real chunked session of Ada (three or more chunks), as the site set it. */
  async function chunked(): Promise<Record<string, string>> {
    const { client } = site(9000)
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada" } })
    const chunks = Object.fromEntries([...client.jar.cookies].filter(([n]) => n.startsWith(`${NAME}.`)))
    expect(Object.keys(chunks).length).toBeGreaterThanOrEqual(3)
    return chunks
  }

  it("baseline: the chunks in order are Ada's session, whatever order the header lists them in", async () => {
    const chunks = await chunked()
    const reversed = Object.fromEntries(Object.entries(chunks).reverse())
    expect((await sessionWith(reversed, 9000)).body?.user.name).toBe("ada")
  })

  it("chunk trick: swapped chunk values are no session", async () => {
    const c = await chunked()
    await expectNoSession({ ...c, [`${NAME}.0`]: c[`${NAME}.1`] as string, [`${NAME}.1`]: c[`${NAME}.0`] as string }, 9000)
  })

  it("chunk trick: a missing middle chunk is no session", async () => {
    const c = await chunked()
    const { [`${NAME}.1`]: _dropped, ...sent } = c
    const { body, log } = await sessionWith(sent, 9000)
    expect(body).toBeNull()
    expect(errorTypes(log)).toEqual(["JWTSessionError"])
  })

  it("chunk trick: an extra chunk appended is no session", async () => {
    const c = await chunked()
    await expectNoSession({ ...c, [`${NAME}.${Object.keys(c).length}`]: "AAAA" }, 9000)
  })

  it("chunk trick: an unchunked attacker token next to the chunks does not win", async () => {
    const c = await chunked()
    const { body } = await sessionWith({ ...c, [NAME]: await token({ name: "Eve", sub: "u-eve" }) }, 9000)
    expect(body?.user.name).toBe("ada")
  })

  it.each([
    `${NAME}-x`,
    `${NAME}.00`,
    `${NAME}.-1`,
    `${NAME}.1e0`,
    `${NAME}x.0`,
    `${NAME}.0.0`,
  ])("chunk trick: a cookie named %s is not part of the session", async (name) => {
    const { body, log } = await sessionWith({ [name]: await token({ name: "Eve", sub: "u-eve" }) })
    expect(body).toBeNull()
    expect(errorTypes(log)).toEqual([])
  })

  it("the session of a browser with tampered chunks is gone afterwards", async () => {
    const { client } = site(9000)
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada" } })
    client.jar.cookies.set(`${NAME}.1`, "AAAA")
    expect(await sessionOf(client)).toBeNull()
    expect([...client.jar.cookies.keys()].filter((n) => n.startsWith(NAME))).toEqual([])
  })
})

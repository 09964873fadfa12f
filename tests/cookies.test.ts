/**
 * Cookie names, options, overrides and chunking (exact-name reads, stale-chunk clears).
 */
import { stringifySetCookie } from "cookie"
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "../src/index.js"
import type { OutCookie } from "../src/runtime/http/cookies.js"
import Credentials from "../src/providers/credentials.js"
import {
  CHUNK_SIZE,
  chunkNamesIn,
  defaultCookies,
  mergeCookies,
  readChunked,
  serializeCookie,
  writeChunked,
} from "../src/runtime/http/cookies.js"
import { AuthClient, SECRET, setCookies } from "./helpers.js"

type CookieOptions = OutCookie["options"]

describe("default cookies", () => {
  it.each([
    [false, "authjs.session-token", "authjs.csrf-token", "authjs.callback-url"],
    [true, "__Secure-authjs.session-token", "__Host-authjs.csrf-token", "__Secure-authjs.callback-url"],
  ])("secure=%s names", (secure, session, csrf, callback) => {
    const c = defaultCookies(secure)
    expect([c.sessionToken.name, c.csrfToken.name, c.callbackUrl.name]).toEqual([session, csrf, callback])
    expect(c.sessionToken.options).toEqual({ httpOnly: true, sameSite: "lax", path: "/", secure })
    expect(c.state.options.maxAge).toBe(900)
    expect(c.pkceCodeVerifier.name).toBe(`${secure ? "__Secure-" : ""}authjs.pkce.code_verifier`)
  })

  it("serialises attributes in Auth.js order", () => {
    const value = serializeCookie({
      name: "n",
      value: "a|b",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: true, maxAge: 900, expires: new Date(0) },
    })
    expect(value).toBe("n=a%7Cb; Max-Age=900; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax")
  })

  it("writes exactly what the cookie package writes (or throws what it throws), for every combination", () => {
    const names = ["authjs.session-token", "__Host-authjs.csrf-token", "a", "bad name", "x;y", "é"]
    const values = ["", "abc", "a|b", "eyJ.x-y_z", "a b", "%41", "'()*!~", "é", "a;b", 'a"b']
    const options: CookieOptions[] = [
      {},
      { path: "/" },
      { httpOnly: true, sameSite: "lax", path: "/", secure: true },
      { maxAge: 0, path: "/x y" },
      { maxAge: 1.5 },
      { expires: new Date(0), sameSite: "Strict" as "strict" },
      { sameSite: true },
      { sameSite: "none", partitioned: true },
      { sameSite: "weird" as "lax" },
      { expires: new Date(Number.NaN) },
      { domain: "example.com" },
      { priority: "high" },
      { path: "/;" },
      { sameSite: false, httpOnly: false, secure: false, maxAge: -1 },
    ]
    const outcome = (write: () => string) => {
      try {
        return write()
      } catch (err) {
        return `throws ${(err as Error).message}`
      }
    }
    for (const name of names) {
      for (const value of values) {
        for (const o of options) {
          const ours = outcome(() => serializeCookie({ name, value, options: o }))
          expect(ours, JSON.stringify({ name, value, o })).toBe(outcome(() => stringifySetCookie(name, value, o)))
        }
      }
    }
  })

  it("merges name and option overrides", () => {
    const merged = mergeCookies(defaultCookies(false), { sessionToken: { name: "sid", options: { domain: "app.test" } as never } })
    expect(merged.sessionToken).toEqual({
      name: "sid",
      options: { httpOnly: true, sameSite: "lax", path: "/", secure: false, domain: "app.test" },
    })
    expect(merged.csrfToken.name).toBe("authjs.csrf-token")
  })
})

describe("chunking", () => {
  it("reads exact chunk names only, in numeric order", () => {
    const jar = { "s.1": "B", "s.0": "A", "s.2": "C", "s-x": "junk", "s.00": "junk", "sx.0": "junk" }
    expect(readChunked(jar, "s")).toBe("ABC")
    expect(chunkNamesIn(jar, "s").sort()).toEqual(["s.0", "s.1", "s.2"])
    expect(readChunked({ s: "whole", "s-extra": "x" }, "s")).toBe("whole")
    expect(readChunked({}, "s")).toBeUndefined()
  })

  it("splits large values and clears stale chunks when switching back", () => {
    const big = "x".repeat(CHUNK_SIZE * 2 + 10)
    const written = writeChunked({}, "s", big, { path: "/" })
    expect(written.map((c) => c.name)).toEqual(["s.0", "s.1", "s.2"])
    expect(written.map((c) => c.value).join("")).toBe(big)
    const small = writeChunked({ "s.0": "a", "s.1": "b", "s.2": "c" }, "s", "tiny", { path: "/" })
    expect(small.map((c) => [c.name, c.value, c.options.maxAge])).toEqual([
      ["s.0", "", 0],
      ["s.1", "", 0],
      ["s.2", "", 0],
      ["s", "tiny", undefined],
    ])
  })

  it("a session too large for one cookie is chunked and read back through Auth", async () => {
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      providers: [Credentials({ authorize: () => ({ id: "1", name: "n".repeat(6000) }) })],
    }
    const client = new AuthClient(config)
    const csrfToken = await client.csrf()
    const res = await client.send("/auth/callback/credentials", { form: { csrfToken } })
    const names = setCookies(res)
      .map((c) => c.name)
      .filter((n) => n.startsWith("authjs.session-token"))
    expect(names).toEqual(["authjs.session-token.0", "authjs.session-token.1", "authjs.session-token.2"])
    for (const c of setCookies(res)) expect(c.value.length).toBeLessThanOrEqual(CHUNK_SIZE)
    const session = (await (await client.send("/auth/session")).json()) as { user: { name: string } }
    expect(session.user.name).toHaveLength(6000)
  })

  it("honours useSecureCookies and cookie overrides end to end", async () => {
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      useSecureCookies: true,
      cookies: { sessionToken: { name: "my-session" } },
      providers: [Credentials({ authorize: () => ({ id: "1" }) })],
    })
    const csrfToken = await client.csrf()
    expect(client.jar.get("__Host-authjs.csrf-token")).toBeDefined()
    await client.send("/auth/callback/credentials", { form: { csrfToken } })
    expect(client.jar.get("my-session")).toBeDefined()
    expect(await (await client.send("/auth/session")).json()).not.toBeNull()
  })
})

/**
 * The example app's protected route tested with a ready-made session cookie (no sign-in walked), under
 * both strategies, as an app's tests would use `sessionCookie` from authchart/testing.
 */
import { describe, expect, it } from "vitest"
import { decode } from "authchart/jwt"
import { createTestClient, getSessionFrom, sessionCookie } from "authchart/testing"
import { createApp } from "./app.js"
import { useTestServers } from "./servers.js"

const servers = useTestServers()

const ada = { id: "user-ada", name: "Ada", email: "ada@example.test" }

describe("sessionCookie with JWT sessions", () => {
  it("gives a cookie the app reads as the user's session", async () => {
    const { app, authConfig } = createApp({ ...servers, strategy: "jwt" })
    const client = await createTestClient(app)
    try {
      const cookie = await sessionCookie(authConfig, ada)
      expect(cookie).toMatch(/^authjs\.session-token=[\w.-]+$/)
      const me = await client.fetch("/me", { headers: { cookie } })
      expect([me.status, await me.json()]).toEqual([200, { email: "ada@example.test", name: "Ada" }])
      const token = await decode({ token: cookie.split("=")[1] ?? "", secret: authConfig.secret ?? "", salt: "authjs.session-token" })
      expect(token).toMatchObject({ sub: "user-ada", email: "ada@example.test", name: "Ada" })
    } finally {
      await client.close()
    }
  })

  it("encodes a given token as is; an https URL gives the __Secure- cookie name", async () => {
    const { authConfig } = createApp({ ...servers, strategy: "jwt" })
    const cookie = await sessionCookie(
      authConfig,
      { token: { sub: "u9", email: "x@example.test", role: "admin" } },
      { url: "https://app.example" },
    )
    const [name, value = ""] = cookie.split("=")
    expect(name).toBe("__Secure-authjs.session-token")
    const token = await decode({ token: value, secret: authConfig.secret ?? "", salt: "__Secure-authjs.session-token" })
    expect(token).toMatchObject({ sub: "u9", email: "x@example.test", role: "admin" })
  })

  it("can be put in the client's jar, then the client is signed in", async () => {
    const { app, authConfig } = createApp({ ...servers, strategy: "jwt" })
    const client = await createTestClient(app)
    try {
      client.jar.set(client.baseUrl, await sessionCookie(authConfig, ada))
      expect((await getSessionFrom(client))?.user?.email).toBe("ada@example.test")
    } finally {
      await client.close()
    }
  })

  it("a cookie made with another secret is no session", async () => {
    const { app, authConfig } = createApp({ ...servers, strategy: "jwt" })
    const client = await createTestClient(app)
    try {
      const cookie = await sessionCookie({ ...authConfig, secret: "another-secret-entirely-0123456789abcdef" }, ada)
      expect((await client.fetch("/me", { headers: { cookie } })).status).toBe(401)
    } finally {
      await client.close()
    }
  })
})

describe("sessionCookie with database sessions", () => {
  it("creates the user and a session through the adapter; the cookie holds the session token", async () => {
    const { app, authConfig, adapter } = createApp({ ...servers, strategy: "database" })
    const client = await createTestClient(app)
    try {
      const cookie = await sessionCookie(authConfig, { name: "Grace", email: "grace@example.test" })
      const [name, token = ""] = cookie.split("=")
      expect(name).toBe("authjs.session-token")
      const stored = await adapter.getSessionAndUser(token)
      expect(stored?.user).toMatchObject({ email: "grace@example.test", name: "Grace" })
      const me = await client.fetch("/me", { headers: { cookie } })
      expect([me.status, await me.json()]).toEqual([200, { email: "grace@example.test", name: "Grace" }])
      // a user the adapter knows is reused, not created again
      const again = await sessionCookie(authConfig, { id: stored?.user.id, email: "grace@example.test" })
      expect((await adapter.getSessionAndUser(again.split("=")[1] ?? ""))?.user.id).toBe(stored?.user.id)
      await expect(sessionCookie(authConfig, { token: { sub: "x" } })).rejects.toThrow(TypeError)
    } finally {
      await client.close()
    }
  })
})

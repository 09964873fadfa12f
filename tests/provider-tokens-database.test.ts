/**
 * Provider tokens with database sessions, on the memory adapter and on published Auth.js SQL adapters
 * (`@auth/pg-adapter` on PostgreSQL, `@auth/drizzle-adapter` on SQLite): the first token set lands on the
 * account row as Auth.js writes it, the current one lives in the server store under the adapter's user
 * id; at expiry 50 concurrent calls cause one refresh, the rotated refresh token is stored and the old
 * one refused by the IdP; `invalid_grant` → `RefreshTokenError` and `error` in the database session;
 * sign-out deletes the store's copy once no session holds it (the row keeps Auth.js' first set);
 * logout at the provider carries this session's ID token (`@auth/pg-adapter` has no `getAccount`, so
 * the row's could not even be read); unlinking the account forgets its tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "../src/adapters/types.js"
import {
  type AuthConfig,
  getAccessToken,
  listSessions,
  memoryServerState,
  RefreshTokenError,
  revokeSession,
  type ServerState,
  stateKey,
  unlinkAccount,
} from "../src/index.js"
import { AuthClient, SECRET, captureLogger } from "./helpers.js"
import { drizzleSqliteBackend, memoryBackend, pgBackend } from "./support/backends.js"
import {
  ACCESS_TOKEN_TTL,
  advanceClock,
  idpProvider,
  refreshAtIdp,
  requestOf,
  sessionOf,
  signInWithIdp,
  usesTokenIdp,
  userinfoSub,
} from "./support/token-app.js"

const the = usesTokenIdp()

describe.each([memoryBackend, pgBackend, drizzleSqliteBackend])("provider tokens with database sessions on $name", (backend) => {
  let adapter: Adapter
  let teardown: () => Promise<void>
  beforeAll(async () => {
    ;({ adapter, teardown } = await backend.setup())
  })
  afterAll(() => teardown?.())

  async function signedIn(account: string) {
    const serverState: ServerState = memoryServerState()
    // the app vouches for another way to sign in, so unlinking the only account is allowed
    const accounts = { hasOtherSignIn: () => true }
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [idpProvider(the.idp)], serverState, accounts }
    config.logger = captureLogger().logger
    config.session = { strategy: "database", providerTokens: "server" }
    const idTokens: string[] = []
    config.events = { signIn: ({ account }) => void (typeof account?.id_token === "string" && idTokens.push(account.id_token)) }
    const client = new AuthClient(config)
    await signInWithIdp(the.idp, client, account)
    const user = await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: account })
    if (!user) throw new Error("the sign-in linked no account")
    const stored = async () => JSON.parse((await serverState.get(stateKey("ptok", String(user.id), "idp"))) ?? "null")
    return { config, client, user, stored, idTokens }
  }

  it("sign-in: the account row gets the token set (as in Auth.js) and the store the current one; expiry → one refresh for 50 calls", async () => {
    const { config, client, stored } = await signedIn("user-alice")
    const first = await stored()
    expect(first).toMatchObject({ providerAccountId: "user-alice", access_token: expect.any(String), refresh_token: expect.any(String) })
    if (adapter.getAccount) {
      const row = await adapter.getAccount("user-alice", "idp")
      expect(row).toMatchObject({ access_token: first.access_token, refresh_token: first.refresh_token, expires_at: first.expires_at })
    }
    advanceClock(ACCESS_TOKEN_TTL + 1)
    const before = the.refreshes()
    const tokens = await Promise.all(Array.from({ length: 50 }, () => getAccessToken(requestOf(client), "idp", config)))
    expect(the.refreshes()).toBe(before + 1)
    expect(new Set(tokens).size).toBe(1)
    const rotated = await stored()
    expect(tokens[0]).toBe(rotated.access_token)
    expect(rotated.refresh_token).not.toBe(first.refresh_token)
    expect(await userinfoSub(the.idp, rotated.access_token)).toBe("user-alice")
    expect(await refreshAtIdp(the.idp, first.refresh_token)).toBe("invalid_grant")
  })

  it("invalid_grant: RefreshTokenError, and the database session carries error = RefreshTokenError", async () => {
    const { config, client, stored } = await signedIn("user-bob")
    expect(await sessionOf(client)).not.toHaveProperty("error")
    expect(await refreshAtIdp(the.idp, (await stored()).refresh_token)).toBe("ok")
    advanceClock(ACCESS_TOKEN_TTL + 1)
    await expect(getAccessToken(requestOf(client), "idp", config)).rejects.toBeInstanceOf(RefreshTokenError)
    expect(await sessionOf(client)).toMatchObject({ error: "RefreshTokenError", user: { email: "bob@example.test" } })
  })
  it("sign-out deletes the store's copy once no session of the user holds it; the account row keeps its tokens (Auth.js')", async () => {
    const { config, client, stored } = await signedIn("user-alice")
    const phone = new AuthClient(config)
    await signInWithIdp(the.idp, phone, "user-alice")
    const row = adapter.getAccount ? await adapter.getAccount("user-alice", "idp") : null
    const signOut = async (browser: AuthClient) => {
      const res = await browser.send("/auth/signout", { form: { csrfToken: await browser.csrf() } })
      expect(res.status).toBe(303)
      expect(await sessionOf(browser)).toBeNull()
    }
    await signOut(client)
    expect(await getAccessToken(requestOf(phone), "idp", config)).toBe((await stored()).access_token)
    await signOut(phone)
    expect(await stored()).toBeNull()
    if (adapter.getAccount) expect(await adapter.getAccount("user-alice", "idp")).toEqual(row)
  })

  it("a session revoked by its id lets go of the tokens too", async () => {
    const { config, client, user, stored } = await signedIn("user-alice")
    const [only] = await listSessions(String(user.id), config)
    expect(await revokeSession({ userId: String(user.id), id: only?.id as string }, config)).toBe(true)
    expect(await sessionOf(client)).toBeNull()
    expect(await stored()).toBeNull()
  })

  it("logout at the provider sends the ID token of the sign-in that made this session (Auth.js' row keeps the first)", async () => {
    const { client, idTokens } = await signedIn("user-alice")
    await signInWithIdp(the.idp, client, "user-alice")
    expect(idTokens).toHaveLength(2)
    const out = await client.send("/auth/signout", { form: { csrfToken: await client.csrf(), provider: "idp" } })
    expect(out.status).toBe(303)
    const target = new URL(out.headers.get("location") as string)
    expect(target.origin).toBe(the.idp.issuer)
    expect(target.searchParams.get("id_token_hint")).toBe(idTokens[1])
  })

  it("unlinking the account forgets its tokens: getAccessToken answers null", async () => {
    const { config, client, user, stored } = await signedIn("user-zoe")
    expect(await getAccessToken(requestOf(client), "idp", config)).toEqual(expect.any(String))
    await unlinkAccount(String(user.id), "idp", config)
    expect(await stored()).toBeNull()
    expect(await getAccessToken(requestOf(client), "idp", config)).toBeNull()
  })
})

/**
 * Provider tokens with database sessions, on the memory adapter and on published Auth.js SQL adapters
 * (`@auth/pg-adapter` on PostgreSQL, `@auth/drizzle-adapter` on SQLite): the first token set lands on the
 * account row as Auth.js writes it, the current one lives in the server store under the adapter's user
 * id; at expiry 50 concurrent calls cause one refresh, the rotated refresh token is stored and the old
 * one refused by the IdP; `invalid_grant` → `RefreshTokenError` and `error` in the database session;
 * unlinking the account forgets its tokens.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "../src/adapters/types.js"
import {
  type AuthConfig,
  getAccessToken,
  memoryServerState,
  RefreshTokenError,
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
    const client = new AuthClient(config)
    await signInWithIdp(the.idp, client, account)
    const user = await adapter.getUserByAccount?.({ provider: "idp", providerAccountId: account })
    if (!user) throw new Error("the sign-in linked no account")
    const stored = async () => JSON.parse((await serverState.get(stateKey("ptok", String(user.id), "idp"))) ?? "null")
    return { config, client, user, stored }
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
  it("unlinking the account forgets its tokens: getAccessToken answers null", async () => {
    const { config, client, user, stored } = await signedIn("user-zoe")
    expect(await getAccessToken(requestOf(client), "idp", config)).toEqual(expect.any(String))
    await unlinkAccount(String(user.id), "idp", config)
    expect(await stored()).toBeNull()
    expect(await getAccessToken(requestOf(client), "idp", config)).toBeNull()
  })
})

/**
 * One conformance suite for every `Adapter`: authchart's own adapters and published
 * Auth.js ones run the same scenarios. It covers what Auth.js' `runBasicTests` checks
 * (including the `sha256(token + "anything")` token hash) and more: copies not references, single use
 * under concurrency, a wrong identifier neither returning nor consuming a token, cascades, WebAuthn
 * methods and "sign out everywhere".
 *
 * Each test creates its own users with unique emails, so tests are independent and share one backend.
 * Behaviour a backend legitimately lacks is switched off by an option; the tests it guards then show
 * as skipped (never silently absent).
 */
import { createHash, randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type {
  Adapter,
  AdapterAccount,
  AdapterAuthenticator,
  AdapterUser,
  CompleteAdapter,
  VerificationToken,
} from "../../src/adapters/types.js"

export interface ConformanceSetup {
  adapter: Adapter
  teardown(): Promise<void>
}

export interface ConformanceOptions {
  /** `createUser` keeps the `id` it is given (authchart passes a UUID). Default true. */
  keepsUserId?: boolean
  /** Returned records may carry extra columns (a serial `id`): compare with `toMatchObject`. Default false. */
  extraColumns?: boolean
  /** `updateSession`, `deleteSession`, `unlinkAccount` and `deleteUser` return the record. Default true. */
  returnsRecords?: boolean
  /** `useVerificationToken` finds a token when `identifier` is undefined (a link without `email`). Default true. */
  tokenWithoutIdentifier?: boolean
  /** A second user with the same email, or a second link of the same account, is rejected. Default true. */
  rejectsDuplicates?: boolean
  /** `getAccount` and the authenticator methods exist and work. Default true. */
  webauthn?: boolean
  /** `deleteUserSessions(userId)` exists ("sign out everywhere"). Default true. */
  deleteUserSessions?: boolean
  /** `updateSession` of an unknown token answers null/undefined; false: it throws. Default true. */
  updatesUnknownSession?: boolean
  /** Concurrent `useVerificationToken` calls for one token: exactly one gets it. Default true. */
  atomicTokenUse?: boolean
  /** After `updateUser` changes the email, the old address no longer finds the user. Default true. */
  emailLookupFollowsUpdate?: boolean
  /** `deleteUser` works for any user and removes all their sessions, accounts, authenticators. Default true. */
  deleteUserComplete?: boolean
}

const DAY = 24 * 60 * 60 * 1000

/** The token hash Auth.js' adapter suite stores: SHA-256 hex of the token plus the secret "anything". */
export function hashToken(token: string): string {
  return createHash("sha256").update(`${token}anything`).digest("hex")
}

/** A date in the future, whole milliseconds (what every backend stores exactly). */
export function inDays(days: number): Date {
  return new Date(Date.now() + days * DAY)
}

export function newUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  return {
    id: randomUUID(),
    email: `fill-${randomUUID()}@example.test`,
    name: "Fill Murray",
    image: "https://example.test/fill.png",
    emailVerified: new Date(Date.now() - DAY),
    ...overrides,
  }
}

export function newAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: "oauth",
    provider: "github",
    providerAccountId: randomUUID(),
    access_token: randomUUID(),
    refresh_token: randomUUID(),
    id_token: randomUUID(),
    token_type: "bearer",
    scope: "user",
    session_state: randomUUID(),
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    ...overrides,
  }
}

export function newAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  const credentialID = Buffer.from(randomUUID()).toString("base64")
  return {
    credentialID,
    userId,
    providerAccountId: credentialID,
    counter: 0,
    credentialBackedUp: true,
    credentialPublicKey: Buffer.from(`public-key-${randomUUID()}`).toString("base64"),
    transports: "internal,hybrid",
    credentialDeviceType: "multiDevice",
    ...overrides,
  }
}

export function newVerificationToken(overrides: Partial<VerificationToken> = {}): VerificationToken {
  return {
    identifier: `fill-${randomUUID()}@example.test`,
    token: hashToken(randomUUID()),
    expires: inDays(1),
    ...overrides,
  }
}

/**
 * Registers the conformance suite for one adapter. `setup` runs once (beforeAll) and returns the
 * adapter plus a teardown (afterAll).
 */
export function runAdapterConformance(name: string, setup: () => Promise<ConformanceSetup>, options: ConformanceOptions = {}): void {
  const {
    keepsUserId = true,
    extraColumns = false,
    returnsRecords = true,
    tokenWithoutIdentifier = true,
    rejectsDuplicates = true,
    webauthn = true,
    deleteUserSessions = true,
    updatesUnknownSession = true,
    atomicTokenUse = true,
    emailLookupFollowsUpdate = true,
    deleteUserComplete = true,
  } = options

  describe(`${name} adapter conformance`, () => {
    let backend: ConformanceSetup | undefined

    beforeAll(async () => {
      backend = await setup()
    })
    afterAll(async () => {
      await backend?.teardown()
    })

    /** The adapter with every method typed present (the first tests assert that they are). */
    function adapter(): CompleteAdapter {
      if (!backend) throw new Error("conformance setup did not finish")
      return backend.adapter as CompleteAdapter
    }

    function expectRecord(actual: unknown, expected: object): void {
      if (extraColumns) expect(actual).toMatchObject(expected)
      else expect(actual).toEqual(expected)
    }

    async function createUser(overrides: Partial<AdapterUser> = {}): Promise<AdapterUser> {
      return adapter().createUser(newUser(overrides))
    }

    describe("methods", () => {
      it("has the user, account and session methods Auth.js requires", () => {
        for (const method of [
          "createUser",
          "getUser",
          "getUserByEmail",
          "getUserByAccount",
          "updateUser",
          "linkAccount",
          "createSession",
          "getSessionAndUser",
          "updateSession",
          "deleteSession",
        ]) {
          expect(adapter(), method).toHaveProperty(method, expect.any(Function))
        }
      })

      it("has the verification token methods and the 'future' methods unlinkAccount and deleteUser", () => {
        for (const method of ["createVerificationToken", "useVerificationToken", "unlinkAccount", "deleteUser"]) {
          expect(adapter(), method).toHaveProperty(method, expect.any(Function))
        }
      })

      it.runIf(webauthn)("has getAccount and the authenticator methods", () => {
        for (const method of [
          "getAccount",
          "getAuthenticator",
          "createAuthenticator",
          "listAuthenticatorsByUserId",
          "updateAuthenticatorCounter",
        ]) {
          expect(adapter(), method).toHaveProperty(method, expect.any(Function))
        }
      })

      it.runIf(deleteUserSessions)("has deleteUserSessions", () => {
        expect(adapter()).toHaveProperty("deleteUserSessions", expect.any(Function))
      })
    })

    describe("users", () => {
      it("createUser returns the user with an id; getUser finds it, with emailVerified as a Date", async () => {
        const input = newUser()
        const created = await adapter().createUser(input)
        expect(created.id).toBeTruthy()
        expectRecord(created, { ...input, id: created.id })
        const found = await adapter().getUser(created.id)
        expectRecord(found, { ...input, id: created.id })
        expect(found?.emailVerified).toBeInstanceOf(Date)
      })

      it.runIf(keepsUserId)("createUser keeps the id it is given", async () => {
        const input = newUser()
        expect((await adapter().createUser(input)).id).toBe(input.id)
        expect((await adapter().getUser(input.id))?.email).toBe(input.email)
      })

      it("createUser assigns an id when none is given", async () => {
        const input = newUser({ id: undefined as unknown as string })
        const created = await adapter().createUser(input)
        expect(created.id).toBeTruthy()
        expect((await adapter().getUser(created.id))?.email).toBe(input.email)
      })

      it("keeps emailVerified null", async () => {
        const created = await createUser({ emailVerified: null })
        expect((await adapter().getUser(created.id))?.emailVerified).toBeNull()
      })

      it("getUser answers null for an unknown id", async () => {
        expect(await adapter().getUser(randomUUID())).toBeNull()
      })

      it("getUserByEmail finds the user, and answers null for an unknown email", async () => {
        const created = await createUser()
        expectRecord(await adapter().getUserByEmail(created.email), created)
        expect(await adapter().getUserByEmail(`nobody-${randomUUID()}@example.test`)).toBeNull()
      })

      it("updateUser merges the given fields, returns the result and stores it", async () => {
        const created = await createUser({ emailVerified: null })
        const verifiedAt = new Date()
        const returned = await adapter().updateUser({ id: created.id, name: "Updated Name", emailVerified: verifiedAt })
        expect(returned).toMatchObject({ id: created.id, name: "Updated Name", email: created.email, emailVerified: verifiedAt })
        const stored = await adapter().getUser(created.id)
        expectRecord(stored, { ...created, name: "Updated Name", emailVerified: verifiedAt })
        expect(stored?.emailVerified).toBeInstanceOf(Date)
      })

      it.runIf(emailLookupFollowsUpdate)("updateUser moves the email lookup to a new address", async () => {
        const created = await createUser()
        const email = `moved-${randomUUID()}@example.test`
        await adapter().updateUser({ id: created.id, email })
        expect((await adapter().getUserByEmail(email))?.id).toEqual(created.id)
        expect(await adapter().getUserByEmail(created.email)).toBeNull()
      })

      it("returns copies: changing a returned user changes nothing stored", async () => {
        const created = await createUser()
        created.name = "Changed Locally"
        created.emailVerified?.setTime(0)
        const found = await adapter().getUser(created.id)
        expect(found?.name).toBe("Fill Murray")
        expect(found?.emailVerified?.getTime()).not.toBe(0)
        if (found) found.name = "Changed Again"
        expect((await adapter().getUser(created.id))?.name).toBe("Fill Murray")
        const viaEmail = await adapter().getUserByEmail(created.email)
        if (viaEmail) viaEmail.name = "Changed Via Email"
        expect((await adapter().getUserByEmail(created.email))?.name).toBe("Fill Murray")
      })

      it.runIf(rejectsDuplicates)("rejects a second user with the same email", async () => {
        const created = await createUser()
        await expect(Promise.resolve().then(() => adapter().createUser(newUser({ email: created.email })))).rejects.toThrow()
        expect((await adapter().getUserByEmail(created.email))?.id).toEqual(created.id)
      })
    })

    describe("accounts", () => {
      it("linkAccount links; getUserByAccount finds the user, and answers null for an unknown account", async () => {
        const user = await createUser()
        const account = newAccount(user.id)
        await adapter().linkAccount(account)
        const key = { provider: account.provider, providerAccountId: account.providerAccountId }
        expectRecord(await adapter().getUserByAccount(key), user)
        expect(await adapter().getUserByAccount({ provider: "github", providerAccountId: randomUUID() })).toBeNull()
        expect(await adapter().getUserByAccount({ provider: "gitlab", providerAccountId: account.providerAccountId })).toBeNull()
      })

      it("unlinkAccount removes the account", async () => {
        const user = await createUser()
        const account = newAccount(user.id)
        await adapter().linkAccount(account)
        const key = { provider: account.provider, providerAccountId: account.providerAccountId }
        const removed = await adapter().unlinkAccount(key)
        if (returnsRecords) expectRecord(removed, account)
        expect(await adapter().getUserByAccount(key)).toBeNull()
        expect((await adapter().getUser(user.id))?.id).toEqual(user.id)
      })

      it.runIf(rejectsDuplicates)("rejects linking the same provider account twice", async () => {
        const user = await createUser()
        const other = await createUser()
        const account = newAccount(user.id)
        await adapter().linkAccount(account)
        await expect(Promise.resolve().then(() => adapter().linkAccount({ ...account, userId: other.id }))).rejects.toThrow()
        const key = { provider: account.provider, providerAccountId: account.providerAccountId }
        expect((await adapter().getUserByAccount(key))?.id).toEqual(user.id)
      })

      it.runIf(webauthn)("getAccount returns the account, and null for an unknown one", async () => {
        const user = await createUser()
        const account = newAccount(user.id, { type: "webauthn", provider: "passkey" })
        await adapter().linkAccount(account)
        expectRecord(await adapter().getAccount(account.providerAccountId, "passkey"), account)
        expect(await adapter().getAccount(account.providerAccountId, "github")).toBeNull()
        expect(await adapter().getAccount(randomUUID(), "passkey")).toBeNull()
      })
    })

    describe("sessions", () => {
      it("createSession stores; getSessionAndUser returns session and user, and null for an unknown token", async () => {
        const user = await createUser()
        const input = { sessionToken: randomUUID(), userId: user.id, expires: inDays(7) }
        expectRecord(await adapter().createSession(input), input)
        const found = await adapter().getSessionAndUser(input.sessionToken)
        expect(found).not.toBeNull()
        expectRecord(found?.session, input)
        expectRecord(found?.user, user)
        expect(found?.session.expires).toBeInstanceOf(Date)
        expect(await adapter().getSessionAndUser(randomUUID())).toBeNull()
      })

      it("updateSession changes expires", async () => {
        const user = await createUser()
        const input = { sessionToken: randomUUID(), userId: user.id, expires: inDays(7) }
        await adapter().createSession(input)
        const expires = inDays(30)
        const returned = await adapter().updateSession({ sessionToken: input.sessionToken, expires })
        if (returnsRecords) expectRecord(returned, { ...input, expires })
        const found = await adapter().getSessionAndUser(input.sessionToken)
        expect(found?.session.expires).toEqual(expires)
        expect(found?.session.expires).toBeInstanceOf(Date)
      })

      it.runIf(updatesUnknownSession)("updateSession of an unknown token answers null or undefined", async () => {
        expect(await adapter().updateSession({ sessionToken: randomUUID(), expires: inDays(1) })).toBeFalsy()
      })

      it("deleteSession removes the session; deleting an unknown token is harmless", async () => {
        const user = await createUser()
        const input = { sessionToken: randomUUID(), userId: user.id, expires: inDays(7) }
        await adapter().createSession(input)
        const removed = await adapter().deleteSession(input.sessionToken)
        if (returnsRecords) expectRecord(removed, input)
        expect(await adapter().getSessionAndUser(input.sessionToken)).toBeNull()
        await adapter().deleteSession(randomUUID())
      })

      it.runIf(deleteUserSessions)("deleteUserSessions ends every session of one user and no other", async () => {
        const user = await createUser()
        const other = await createUser()
        const tokens = [randomUUID(), randomUUID()]
        for (const sessionToken of tokens) await adapter().createSession({ sessionToken, userId: user.id, expires: inDays(7) })
        const kept = { sessionToken: randomUUID(), userId: other.id, expires: inDays(7) }
        await adapter().createSession(kept)
        expect(await adapter().deleteUserSessions(user.id)).toBe(2)
        for (const token of tokens) expect(await adapter().getSessionAndUser(token)).toBeNull()
        expect((await adapter().getSessionAndUser(kept.sessionToken))?.user.id).toEqual(other.id)
        expect(await adapter().deleteUserSessions(user.id)).toBe(0)
        expect(await adapter().deleteUserSessions(randomUUID())).toBe(0)
      })
    })

    describe("verification tokens", () => {
      it("createVerificationToken stores a hashed token; useVerificationToken returns it once, then null", async () => {
        const input = newVerificationToken()
        expect(input.token).toMatch(/^[0-9a-f]{64}$/)
        const created = await adapter().createVerificationToken(input)
        if (created) expect(created).toEqual(input)
        const used = await adapter().useVerificationToken({ identifier: input.identifier, token: input.token })
        expect(used).toEqual(input)
        expect(used?.expires).toBeInstanceOf(Date)
        expect(await adapter().useVerificationToken({ identifier: input.identifier, token: input.token })).toBeNull()
      })

      it("a wrong identifier gets null and does not consume the token", async () => {
        const input = newVerificationToken()
        await adapter().createVerificationToken(input)
        expect(await adapter().useVerificationToken({ identifier: "someone-else@example.test", token: input.token })).toBeNull()
        expect(await adapter().useVerificationToken({ identifier: input.identifier, token: input.token })).toEqual(input)
      })

      it("an unknown token gets null", async () => {
        expect(await adapter().useVerificationToken({ identifier: "fill@example.test", token: hashToken(randomUUID()) })).toBeNull()
      })

      it.runIf(atomicTokenUse)("concurrent uses of one token: exactly one gets it", async () => {
        const input = newVerificationToken()
        await adapter().createVerificationToken(input)
        const params = { identifier: input.identifier, token: input.token }
        const results = await Promise.all([1, 2, 3, 4].map(() => adapter().useVerificationToken(params)))
        expect(results.filter((r) => r !== null)).toEqual([input])
      })

      it.runIf(tokenWithoutIdentifier)("an undefined identifier (a link without email) matches by token, once", async () => {
        const input = newVerificationToken()
        await adapter().createVerificationToken(input)
        const params = { identifier: undefined as unknown as string, token: input.token }
        expect(await adapter().useVerificationToken(params)).toEqual(input)
        expect(await adapter().useVerificationToken(params)).toBeNull()
        expect(await adapter().useVerificationToken({ identifier: input.identifier, token: input.token })).toBeNull()
      })
    })

    describe("deleteUser", () => {
      it("deletes the user with their sessions and accounts", async () => {
        const user = await createUser()
        const account = newAccount(user.id)
        const session = { sessionToken: randomUUID(), userId: user.id, expires: inDays(7) }
        await adapter().linkAccount(account)
        await adapter().createSession(session)
        const bystander = await createUser()
        const bystanderSession = { sessionToken: randomUUID(), userId: bystander.id, expires: inDays(7) }
        await adapter().createSession(bystanderSession)

        const removed = await adapter().deleteUser(user.id)
        if (returnsRecords) expectRecord(removed, user)
        expect(await adapter().getUser(user.id)).toBeNull()
        expect(await adapter().getUserByEmail(user.email)).toBeNull()
        expect(await adapter().getSessionAndUser(session.sessionToken)).toBeNull()
        const key = { provider: account.provider, providerAccountId: account.providerAccountId }
        expect(await adapter().getUserByAccount(key)).toBeNull()
        if (webauthn) expect(await adapter().getAccount(account.providerAccountId, account.provider)).toBeNull()
        expect((await adapter().getSessionAndUser(bystanderSession.sessionToken))?.user.id).toEqual(bystander.id)
      })

      it.runIf(webauthn && deleteUserComplete)("deletes the user's authenticators too", async () => {
        const user = await createUser()
        const authenticator = newAuthenticator(user.id)
        await adapter().createAuthenticator(authenticator)
        await adapter().deleteUser(user.id)
        expect(await adapter().getAuthenticator(authenticator.credentialID)).toBeNull()
        expect(await adapter().listAuthenticatorsByUserId(user.id)).toEqual([])
      })

      it.runIf(deleteUserComplete)("frees the email for a new user", async () => {
        const user = await createUser()
        await adapter().deleteUser(user.id)
        const again = await createUser({ email: user.email })
        expect((await adapter().getUserByEmail(user.email))?.id).toEqual(again.id)
      })
    })

    describe.runIf(webauthn)("authenticators", () => {
      it("createAuthenticator stores; getAuthenticator finds it, and null for an unknown id", async () => {
        const user = await createUser()
        const input = newAuthenticator(user.id)
        expectRecord(await adapter().createAuthenticator(input), input)
        expectRecord(await adapter().getAuthenticator(input.credentialID), input)
        expect(await adapter().getAuthenticator(randomUUID())).toBeNull()
      })

      it("listAuthenticatorsByUserId lists exactly the user's authenticators", async () => {
        const user = await createUser()
        const other = await createUser()
        const mine = [newAuthenticator(user.id), newAuthenticator(user.id, { transports: null })]
        for (const a of mine) await adapter().createAuthenticator(a)
        await adapter().createAuthenticator(newAuthenticator(other.id))
        const listed = await adapter().listAuthenticatorsByUserId(user.id)
        const byId = (a: AdapterAuthenticator, b: AdapterAuthenticator) => a.credentialID.localeCompare(b.credentialID)
        expect([...listed].sort(byId)).toEqual([...mine].sort(byId))
        expect(await adapter().listAuthenticatorsByUserId(randomUUID())).toEqual([])
      })

      it("updateAuthenticatorCounter stores and returns the new counter", async () => {
        const user = await createUser()
        const input = newAuthenticator(user.id)
        await adapter().createAuthenticator(input)
        expectRecord(await adapter().updateAuthenticatorCounter(input.credentialID, 7), { ...input, counter: 7 })
        expect((await adapter().getAuthenticator(input.credentialID))?.counter).toBe(7)
      })

      it("updateAuthenticatorCounter throws for an unknown credential id", async () => {
        await expect(Promise.resolve().then(() => adapter().updateAuthenticatorCounter(randomUUID(), 1))).rejects.toThrow()
      })

      it("deleteAuthenticator (where the adapter has it) removes it from lookups and the user's list, null for an unknown id", async (test) => {
        const remove = adapter().deleteAuthenticator?.bind(adapter())
        if (!remove) return test.skip()
        const user = await createUser()
        const [gone, kept] = [newAuthenticator(user.id), newAuthenticator(user.id)]
        for (const a of [gone, kept]) await adapter().createAuthenticator(a)
        expectRecord(await remove(gone.credentialID), gone)
        expect(await adapter().getAuthenticator(gone.credentialID)).toBeNull()
        expect((await adapter().listAuthenticatorsByUserId(user.id)).map((a) => a.credentialID)).toEqual([kept.credentialID])
        expect(await remove(gone.credentialID)).toBeNull()
      })
    })
  })
}

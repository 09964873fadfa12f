/**
 * MemoryAdapter: the shared conformance suite, plus what is particular to it (records stay until
 * deleted, like SQL rows, so authchart's own `expires` checks and fake clocks work).
 */
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "../../src/adapters/memory.js"
import { inDays, newUser, newVerificationToken, runAdapterConformance } from "./conformance.js"

runAdapterConformance("memory", async () => ({ adapter: MemoryAdapter(), teardown: async () => {} }))

describe("MemoryAdapter", () => {
  it("keeps an expired session and token: authchart checks expires itself", async () => {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser(newUser())
    const expired = new Date(Date.now() - 1000)
    await adapter.createSession({ sessionToken: "s", userId: user.id, expires: expired })
    expect((await adapter.getSessionAndUser("s"))?.session.expires).toEqual(expired)
    const token = newVerificationToken({ expires: expired })
    await adapter.createVerificationToken(token)
    expect(await adapter.useVerificationToken(token)).toEqual(token)
  })

  it("each MemoryAdapter() is its own store", async () => {
    const one = MemoryAdapter()
    const two = MemoryAdapter()
    const user = await one.createUser(newUser())
    expect(await two.getUser(user.id)).toBeNull()
  })

  it("returns copies of sessions, accounts and tokens too", async () => {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser(newUser())
    const session = await adapter.createSession({ sessionToken: randomUUID(), userId: user.id, expires: inDays(1) })
    session.expires.setTime(0)
    expect((await adapter.getSessionAndUser(session.sessionToken))?.session.expires.getTime()).not.toBe(0)
    const input = newVerificationToken()
    const created = await adapter.createVerificationToken(input)
    created?.expires.setTime(0)
    input.expires.setTime(1)
    expect((await adapter.useVerificationToken(input))?.expires.getTime()).toBeGreaterThan(Date.now())
  })
})

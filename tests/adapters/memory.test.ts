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

  it("copies a user's own data deeply, and what plain copying does not cover as structuredClone does", async () => {
    const adapter = MemoryAdapter()
    /** The user as stored and read back, with `extra` as its own fields. */
    const roundTrip = async (extra: Record<string, unknown>) => {
      const created = await adapter.createUser({ ...newUser(), ...extra } as never)
      return (await adapter.getUser(created.id)) as unknown as Record<string, unknown>
    }
    const prefs = { tags: ["a", "b"], since: new Date(5), none: null, skipped: undefined }
    const plain = await roundTrip({ prefs })
    expect(plain.prefs).toEqual(prefs)
    expect((plain.prefs as typeof prefs).since).toBeInstanceOf(Date)
    expect("skipped" in (plain.prefs as object)).toBe(true)
    ;(plain.prefs as typeof prefs).tags.push("c")
    ;(plain.prefs as typeof prefs).since.setTime(0)
    const again = (await adapter.getUser(plain.id as string)) as unknown as { prefs: typeof prefs }
    expect(again.prefs.tags).toEqual(["a", "b"])
    expect(again.prefs.since.getTime()).toBe(5)
    // each of these is structuredClone's: an array's own field, a hole, a map, bytes, a cycle, a class instance
    expect(((await roundTrip({ roles: Object.assign(["admin"], { note: "kept" }) })).roles as { note: string }).note).toBe("kept")
    const sparse: unknown[] = [1]
    sparse[2] = 3
    expect(1 in ((await roundTrip({ sparse })).sparse as unknown[])).toBe(false)
    expect((await roundTrip({ lookup: new Map([["k", 1]]) })).lookup).toEqual(new Map([["k", 1]]))
    expect((await roundTrip({ bytes: new Uint8Array([1, 2]) })).bytes).toEqual(new Uint8Array([1, 2]))
    const cyclic: Record<string, unknown> = { name: "loop" }
    cyclic.self = cyclic
    const loop = (await roundTrip({ cyclic })).cyclic as Record<string, unknown>
    expect(loop.self).toBe(loop)
    class Point {
      readonly x = 1
    }
    expect((await roundTrip({ point: new Point() })).point).not.toBeInstanceOf(Point)
    await expect(adapter.createUser({ ...newUser(), greet: () => "hi" } as never)).rejects.toThrow(/could not be cloned/)
  })
})

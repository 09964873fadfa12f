/**
 * One conformance suite for every `ServerState`: the default memory port and
 * `RedisServerState` on a real redis-server run the same scenarios: claim once (also raced), count in a
 * window (also raced), reset, the per-user "not before", records of fields, expiry of each, and keys
 * that do not collide; values with a TTL (get/set), owned locks (also raced) and the write that needs a
 * held lock.
 * Expiry runs in real time with TTLs of a few tens of milliseconds (waiting, not asserting speed).
 */
import { setTimeout as sleep } from "node:timers/promises"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ServerState, stateKey } from "../src/runtime/limits/server-state.js"

export interface ServerStateUnderTest {
  name: string
  make(): Promise<{ state: ServerState; teardown(): Promise<void> }>
}

let unique = 0
/** A key no other test uses. */
const fresh = (kind = "test") => stateKey(kind, `owner-${process.pid}-${++unique}`, "x")

export function runServerStateConformance({ name, make }: ServerStateUnderTest): void {
  describe(`server-state conformance: ${name}`, () => {
    let state: ServerState
    let teardown: () => Promise<void>
    beforeAll(async () => {
      ;({ state, teardown } = await make())
    })
    afterAll(async () => {
      await teardown?.()
    })

    it("claim: true the first time, false while the claim lives, true again once it expired", async () => {
      const key = fresh()
      expect(await state.claim(key, 60)).toBe(true)
      expect(await state.claim(key, 60)).toBe(false)
      expect(await state.claim(key, 60_000)).toBe(false)
      await sleep(150)
      expect(await state.claim(key, 60_000)).toBe(true)
    })

    it("claim under a race: of 25 simultaneous claims exactly one wins", async () => {
      const key = fresh()
      const results = await Promise.all(Array.from({ length: 25 }, () => state.claim(key, 10_000)))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it("reset releases a claim (a lock given back early)", async () => {
      const key = fresh("lock")
      expect(await state.claim(key, 10_000)).toBe(true)
      await state.reset(key)
      expect(await state.claim(key, 10_000)).toBe(true)
    })

    it("count: 1, 2, 3 within one window with one reset time; a new window after it ends", async () => {
      const key = fresh("attempts")
      // a window long enough that three round trips fit in it on a loaded machine
      const before = Date.now()
      const first = await state.count(key, 600)
      expect(first.count).toBe(1)
      expect(first.resetAt).toBeGreaterThan(before)
      expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 600)
      expect((await state.count(key, 600)).count).toBe(2)
      const third = await state.count(key, 600)
      expect(third.count).toBe(3)
      expect(Math.abs(third.resetAt - first.resetAt)).toBeLessThan(40)
      await sleep(Math.max(0, first.resetAt - Date.now()) + 100)
      const next = await state.count(key, 60_000)
      expect(next.count).toBe(1)
      expect(next.resetAt).toBeGreaterThan(Date.now() + 50_000)
    })

    it("count under a race: 25 simultaneous hits count 1 … 25, each once", async () => {
      const key = fresh("rate")
      const counts = (await Promise.all(Array.from({ length: 25 }, () => state.count(key, 10_000)))).map((c) => c.count)
      expect(counts.sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    })

    it("reset starts a count again at zero", async () => {
      const key = fresh("attempts")
      await state.count(key, 10_000)
      await state.count(key, 10_000)
      await state.reset(key)
      expect((await state.count(key, 10_000)).count).toBe(1)
    })

    it("not before: none at first; set; a later moment replaces it, an earlier one does not; it expires", async () => {
      const user = `user-${process.pid}-${++unique}`
      expect(await state.getNotBefore(user)).toBeNull()
      await state.setNotBefore(user, 1_700_000_000_000, 10_000)
      expect(await state.getNotBefore(user)).toBe(1_700_000_000_000)
      await state.setNotBefore(user, 1_700_000_005_000, 10_000)
      expect(await state.getNotBefore(user)).toBe(1_700_000_005_000)
      await state.setNotBefore(user, 1_600_000_000_000, 60)
      expect(await state.getNotBefore(user)).toBe(1_700_000_005_000)
      await sleep(150)
      expect(await state.getNotBefore(user)).toBeNull()
    })

    it("keys do not collide: kinds, owners and parts are kept apart, and a user's not-before is its own", async () => {
      const owner = `o-${process.pid}-${++unique}`
      expect(await state.claim(stateKey("a", owner, "1"), 10_000)).toBe(true)
      expect(await state.claim(stateKey("b", owner, "1"), 10_000)).toBe(true)
      expect(await state.claim(stateKey("a", `${owner}}`, "1"), 10_000)).toBe(true)
      expect(await state.claim(stateKey("a", owner, "1:2"), 10_000)).toBe(true)
      expect(await state.claim(stateKey("a", owner, "1", "2"), 10_000)).toBe(true)
      expect(await state.claim(stateKey("a", owner, "1"), 10_000)).toBe(false)
      await state.setNotBefore(owner, 42, 10_000)
      expect(await state.getNotBefore(`${owner}x`)).toBeNull()
      expect(await state.getNotBefore(owner)).toBe(42)
    })

    it("fields: set some, add more, overwrite one, read them all, delete some; a record left empty is gone", async () => {
      const key = fresh("sessions")
      expect(await state.getFields(key)).toEqual({})
      await state.setFields(key, { "a:t": "token-a", "a:c": "1" }, 10_000)
      await state.setFields(key, { "b:t": "token-b" }, 10_000)
      await state.setFields(key, { "a:c": "2" }, 10_000)
      expect(await state.getFields(key)).toEqual({ "a:t": "token-a", "a:c": "2", "b:t": "token-b" })
      await state.deleteFields(key, ["a:t", "a:c", "missing"])
      expect(await state.getFields(key)).toEqual({ "b:t": "token-b" })
      await state.deleteFields(key, [])
      await state.deleteFields(key, ["b:t"])
      expect(await state.getFields(key)).toEqual({})
      await state.setFields(key, { x: "1" }, 10_000)
      await state.reset(key)
      expect(await state.getFields(key)).toEqual({})
    })

    it("fields: a record lives as long as its longest set asked, and is gone after", async () => {
      const key = fresh("sessions")
      await state.setFields(key, { a: "1" }, 250)
      await state.setFields(key, { b: "2" }, 40)
      await sleep(120)
      expect(await state.getFields(key)).toEqual({ a: "1", b: "2" })
      await sleep(300)
      expect(await state.getFields(key)).toEqual({})
    })

    it("fields under a race: 25 simultaneous sets of different fields all land", async () => {
      const key = fresh("accounts")
      await Promise.all(Array.from({ length: 25 }, (_, i) => state.setFields(key, { [`f${i}`]: String(i) }, 10_000)))
      const fields = await state.getFields(key)
      expect(Object.keys(fields)).toHaveLength(25)
      expect(fields.f7).toBe("7")
    })

    it("get/set: null at first; a value replaces the last one; it expires; reset forgets it", async () => {
      const key = fresh("value")
      expect(await state.get(key)).toBeNull()
      await state.set(key, '{"a":1}', 10_000)
      expect(await state.get(key)).toBe('{"a":1}')
      await state.set(key, "second ✓", 60)
      expect(await state.get(key)).toBe("second ✓")
      await sleep(150)
      expect(await state.get(key)).toBeNull()
      await state.set(key, "again", 10_000)
      await state.reset(key)
      expect(await state.get(key)).toBeNull()
    })

    it("lock: one owner at a time; unlock only by its owner; a lock expires on its own", async () => {
      const key = fresh("lock")
      expect(await state.lock(key, "owner-a", 10_000)).toBe(true)
      expect(await state.lock(key, "owner-b", 10_000)).toBe(false)
      expect(await state.lock(key, "owner-a", 10_000)).toBe(false)
      await state.unlock(key, "owner-b")
      expect(await state.lock(key, "owner-b", 10_000)).toBe(false)
      await state.unlock(key, "owner-a")
      expect(await state.lock(key, "owner-b", 60)).toBe(true)
      await sleep(150)
      expect(await state.lock(key, "owner-c", 10_000)).toBe(true)
      // b's lock expired and c took it over: b giving "its" lock back must not free c's
      await state.unlock(key, "owner-b")
      expect(await state.lock(key, "owner-d", 10_000)).toBe(false)
    })

    it("lock under a race: of 25 owners asking at once exactly one gets it", async () => {
      const key = fresh("lock")
      const results = await Promise.all(Array.from({ length: 25 }, (_, i) => state.lock(key, `owner-${i}`, 10_000)))
      expect(results.filter(Boolean)).toHaveLength(1)
    })

    it("setIfLocked: writes only while the owner holds the lock, and only then", async () => {
      const owner = `o-${process.pid}-${++unique}`
      const lock = stateKey("refresh-lock", owner, "p")
      const key = stateKey("tokens", owner, "p")
      expect(await state.setIfLocked(lock, "me", key, "v1", 10_000)).toBe(false)
      expect(await state.get(key)).toBeNull()
      expect(await state.lock(lock, "me", 60)).toBe(true)
      expect(await state.setIfLocked(lock, "someone-else", key, "v0", 10_000)).toBe(false)
      expect(await state.setIfLocked(lock, "me", key, "v1", 10_000)).toBe(true)
      expect(await state.get(key)).toBe("v1")
      await sleep(150)
      // the lock expired: the late writer is refused and the value stays
      expect(await state.setIfLocked(lock, "me", key, "v2", 10_000)).toBe(false)
      expect(await state.get(key)).toBe("v1")
    })

    it("setIfLocked on the lock itself renews it for its owner only: the lock outlives its first lifetime", async () => {
      const owner = `o-${process.pid}-${++unique}`
      const lock = stateKey("refresh-lock", owner, "p")
      expect(await state.lock(lock, "me", 300)).toBe(true)
      for (let i = 0; i < 4; i++) {
        await sleep(100)
        expect(await state.setIfLocked(lock, "me", lock, "me", 300)).toBe(true)
      }
      // 400 ms after taking a 300 ms lock: still held, renewed
      expect(await state.lock(lock, "other", 10_000)).toBe(false)
      expect(await state.setIfLocked(lock, "other", lock, "other", 10_000)).toBe(false)
      await sleep(450)
      // no renewal for longer than its lifetime: it expired, another owner takes it, the old owner cannot renew it
      expect(await state.lock(lock, "next", 10_000)).toBe(true)
      expect(await state.setIfLocked(lock, "me", lock, "me", 10_000)).toBe(false)
      await state.unlock(lock, "me")
      expect(await state.lock(lock, "again", 10_000)).toBe(false)
    })

    it("setIfLocked refuses keys of two owners (two Redis Cluster slots)", async () => {
      const lock = stateKey("refresh-lock", `a-${process.pid}`, "p")
      const key = stateKey("tokens", `b-${process.pid}`, "p")
      await expect(state.setIfLocked(lock, "me", key, "v", 10_000)).rejects.toThrow(TypeError)
    })
  })
}

/**
 * Attack class: cross-provider flow state. The sign-in state of provider A (its flow cookie or stored
 * envelope, its `state` value, its authorization response) is never accepted at provider B's callback:
 * not with the cookie store, not with Redis, and not with a store that keys flows by id alone (the
 * engine checks the envelope's provider itself). Two providers at one real OpenID provider, each with
 * its own client, so that only the flow binding tells them apart.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { FlowEnvelope, FlowStore } from "../../src/index.js"
import { RedisFlowStore } from "../../src/stores/redis.js"
import type { OidcServer } from "../support/oidc-provider.js"
import { type RedisServer, type TestRedisClient, connectClient, startRedis } from "../support/redis-server.js"
import {
  OTHER_CLIENT,
  ORIGIN,
  answerUrl,
  beginSignIn,
  browser,
  deliver,
  errorTypes,
  expectRefused,
  flowCookie,
  oidcAt,
  startIdp,
} from "./support.js"

let idp: OidcServer
let redis: RedisServer
let redisClient: TestRedisClient

beforeAll(async () => {
  ;[idp, redis] = await Promise.all([startIdp(["a", "b"]), startRedis()])
  redisClient = await connectClient(redis.url)
})
afterAll(async () => {
  redisClient?.destroy()
  await Promise.all([idp?.stop(), redis?.stop()])
})

/** A flow store an app might write: the cookie holds an id, the envelope is looked up by that id alone. */
function idOnlyStore(): FlowStore {
  const kept = new Map<string, FlowEnvelope>()
  return {
    async load(io) {
      const id = io.cookies[io.cookieName]
      return id ? (kept.get(id) ?? null) : null
    },
    async save(envelope, io) {
      const id = randomUUID()
      kept.set(id, envelope)
      return [{ name: io.cookieName, value: id, options: { ...io.cookieOptions } }]
    },
    async clear(io) {
      return [{ name: io.cookieName, value: "", options: { ...io.cookieOptions, maxAge: 0 } }]
    },
  }
}

const stores: Array<[string, () => FlowStore | undefined]> = [
  ["the cookie store", () => undefined],
  ["the Redis store", () => RedisFlowStore(redisClient, { prefix: `cross:${randomUUID()}:` })],
  ["a store keyed by flow id alone", idOnlyStore],
]

const providers = () => [oidcAt(idp, "a"), oidcAt(idp, "b", { clientId: OTHER_CLIENT.id, clientSecret: OTHER_CLIENT.secret })]

describe.each(stores)("cross-provider flow state with %s", (_, makeStore) => {
  function setup() {
    const flowStore = makeStore()
    return browser(providers(), flowStore ? { flowStore } : {})
  }

  it("baseline: A's own answer with A's flow signs in", async () => {
    const { client } = setup()
    const res = await deliver(client, answerUrl(await idp.authorize((await beginSignIn(client, "a")).href)))
    expect(res.headers.get("location")).toBe(ORIGIN)
  })

  it("cross-provider flow state: A's flow state presented at B's callback is FlowStateError", async () => {
    const { client, log } = setup()
    const answer = answerUrl(await idp.authorize((await beginSignIn(client, "a")).href))
    client.jar.cookies.set(flowCookie("b"), client.jar.get(flowCookie("a")) as string)
    client.jar.cookies.delete(flowCookie("a"))
    const before = idp.tokenRequests.count
    const res = await client.send(`/auth/callback/b${answer.search}`)
    await expectRefused(client, res, `${ORIGIN}/auth/signin?error=FlowStateError`)
    expect(errorTypes(log)).toEqual(["FlowStateError"])
    expect(idp.tokenRequests.count).toBe(before)
    expect(client.jar.get(flowCookie("b"))).toBeUndefined()
  })

  it("cross-provider flow state: A's answer at B's callback, with B's own flow in progress, is refused unredeemed", async () => {
    const { client, log } = setup()
    const answerA = answerUrl(await idp.authorize((await beginSignIn(client, "a")).href))
    await beginSignIn(client, "b")
    const before = idp.tokenRequests.count
    const res = await client.send(`/auth/callback/b${answerA.search}`)
    await expectRefused(client, res, `${ORIGIN}/auth/error?error=Configuration`)
    expect(errorTypes(log)).toEqual(["InvalidCheck"])
    expect(idp.tokenRequests.count).toBe(before)
  })
})

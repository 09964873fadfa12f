/**
 * The redacted inspection stream: what a sign-in looks like to an inspector, and that no secret is in it.
 */
import { describe, expect, it } from "vitest"
import type { InspectionEvent } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { totpCode } from "../src/steps/totp.js"
import { appConfig, users } from "./fixtures/credentials-with-totp.js"
import { AuthClient, SECRET } from "./helpers.js"

/** An event as one line of the timeline: what the flow did, in its own words. */
function line(e: InspectionEvent): string {
  switch (e.type) {
    case "request":
      return `request ${e.method} ${e.action} ${e.event}`
    case "transition":
      return `transition ${e.state} ← ${e.event}`
    case "effect":
      return `effect ${e.effect} ${e.phase}`
    case "persist":
      return `persist ${e.state}`
    case "end":
      return `end ${e.state} ${e.ok ? "ok" : e.errorType}`
  }
}

describe("inspection stream", () => {
  it("shows request, transitions, effects and the end of a credentials sign-in, without secrets", async () => {
    const events: InspectionEvent[] = []
    const rawTypes: string[] = []
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      inspect: (e) => void events.push(e),
      providers: [Credentials({ authorize: (c) => (c.password === "s3cret-pass" ? { id: "1", name: "Ann" } : null) })],
    })
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, password: "s3cret-pass" } })
    expect(events.map(line)).toEqual([
      "request POST callback SUBMIT",
      "transition authorizing ← SUBMIT",
      "effect authorize start",
      "effect authorize done",
      "transition gate ← done: authorize",
      "effect signInGate start",
      "effect signInGate done",
      "transition linking ← done: signInGate",
      "effect linkIdentity start",
      "effect linkIdentity done",
      "transition issuing ← done: linkIdentity",
      "effect issueSession start",
      "effect issueSession done",
      "transition done ← done: issueSession",
      "end done ok",
    ])
    expect(events.map((e) => e.at)).toEqual(events.map((e) => e.at).sort((a, b) => a - b))
    expect(new Set(events.map((e) => e.flowId)).size).toBe(1)
    const all = JSON.stringify(events)
    expect(all).not.toContain("s3cret-pass")
    expect(all).not.toContain(csrfToken)
    expect(all).not.toContain(SECRET)
    expect(rawTypes).toEqual([])
  })

  it("a refused sign-in ends in `failed` after `error: authorize`, with no xstate internals in the stream", async () => {
    const events: InspectionEvent[] = []
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      inspect: (e) => void events.push(e),
      providers: [Credentials({ authorize: () => null })],
    })
    await client.send("/auth/callback/credentials", { form: { csrfToken: await client.csrf(), password: "wrong" } })
    expect(events.map(line)).toEqual([
      "request POST callback SUBMIT",
      "transition authorizing ← SUBMIT",
      "effect authorize start",
      "effect authorize error",
      "transition failed ← error: authorize",
      "end failed CredentialsSignin",
    ])
    expect(JSON.stringify(events)).not.toContain("xstate.")
  })

  it("a flow that rests between requests: persisted in its step, resumed without a restart in its timeline", async () => {
    const events: InspectionEvent[] = []
    const client = new AuthClient({ ...appConfig(SECRET), trustHost: true, inspect: (e) => void events.push(e) })
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, username: "ada", password: "correct horse" } })
    expect(events.map(line).slice(-6)).toEqual([
      "effect linkIdentity done",
      "transition totp.entering ← done: linkIdentity",
      "effect totp.enter start",
      "effect totp.enter done",
      "transition totp.waiting ← done: totp.enter",
      "persist totp.waiting",
    ])
    const resting = events.length
    const code = totpCode(users.get("ada")?.totpSecret as string)
    const done = await client.send("/auth/callback/credentials", { form: { csrfToken, step: "totp", code } })
    expect(done.status).toBe(303)
    expect(events.slice(resting).map(line)).toEqual([
      "request POST callback STEP",
      "transition totp.checking ← STEP",
      "effect totp.submit start",
      "effect totp.submit done",
      "transition issuing ← done: totp.submit",
      "effect issueSession start",
      "effect issueSession done",
      "transition done ← done: issueSession",
      "end done ok",
    ])
    expect(new Set(events.map((e) => e.flowId)).size).toBe(1)
    expect(JSON.stringify(events)).not.toContain(code)
  })

  it("passes xstate's own events to an @statelyai/inspect-style inspector with contexts redacted", async () => {
    const raw: { type: string; snapshot?: { context?: unknown } }[] = []
    const client = new AuthClient({
      secret: SECRET,
      trustHost: true,
      inspect: { inspect: { next: (e) => void raw.push(e as never) } },
      providers: [Credentials({ authorize: () => ({ id: "1", name: "Ann" }) })],
    })
    const csrfToken = await client.csrf()
    await client.send("/auth/callback/credentials", { form: { csrfToken, password: "hunter2-pass" } })
    expect(raw.some((e) => e.type === "@xstate.snapshot")).toBe(true)
    for (const e of raw.filter((x) => x.type === "@xstate.snapshot")) expect(e.snapshot?.context).toBe("[redacted]")
    expect(JSON.stringify(raw, (k, v) => (k === "actorRef" || k === "sourceRef" ? undefined : v))).not.toContain("hunter2-pass")
  })
})

/**
 * The redacted inspection stream: what a sign-in looks like to an inspector, and that no secret is in it.
 */
import { describe, expect, it } from "vitest"
import type { InspectionEvent } from "../src/index.js"
import Credentials from "../src/providers/credentials.js"
import { AuthClient, SECRET } from "./helpers.js"

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
    const summary = events.map((e) =>
      e.type === "transition" ? `transition:${e.state}` : e.type === "effect" ? `effect:${e.effect}:${e.phase}` : e.type,
    )
    expect(summary).toEqual([
      "request",
      "transition:idle",
      "effect:authorize:start",
      "transition:authorizing",
      "effect:authorize:done",
      "effect:signInGate:start",
      "transition:gate",
      "effect:signInGate:done",
      "effect:linkIdentity:start",
      "transition:linking",
      "effect:linkIdentity:done",
      "effect:issueSession:start",
      "transition:issuing",
      "effect:issueSession:done",
      "transition:done",
      "end",
    ])
    expect(summary[0]).toBe("request")
    expect(summary.at(-1)).toBe("end")
    expect(summary).toContain("effect:authorize:done")
    expect(summary).toContain("transition:done")
    expect(new Set(events.map((e) => e.flowId)).size).toBe(1)
    const all = JSON.stringify(events)
    expect(all).not.toContain("s3cret-pass")
    expect(all).not.toContain(csrfToken)
    expect(all).not.toContain(SECRET)
    expect(rawTypes).toEqual([])
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

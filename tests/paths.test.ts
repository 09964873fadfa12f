/**
 * Every path through every built-in flow (and an extended one): explored with `xstate/graph`'s adjacency
 * map over every request event and every effect outcome (done or error) of the states it reaches.
 * Each reachable state can still end; every end is `done`/`sent`/`denied` with a reply or `failed`
 * with a typed error; every state that waits for input has a route in the flow's table.
 */
import { describe, expect, it } from "vitest"
import { type AnyEventObject, type AnyMachineSnapshot, type AnyStateMachine, type AnyStateNode, type StateValue, transition } from "xstate"
import { getAdjacencyMap, getStateNodes } from "xstate/graph"
import { AuthError, credentialsFlow, emailFlow, extendFlow, oauthFlow } from "../src/index.js"
import type { FlowDefinition } from "../src/index.js"
import { AWAITING_INPUT } from "../src/machines/types.js"
import { totpStep } from "../src/steps/totp.js"
import { emailCodeFlow } from "../src/providers/email-code/index.js"

const identity = { user: { id: "1", name: "A" }, account: { provider: "p", providerAccountId: "1", type: "oauth" } }
/** A plausible output of each effect, by invoke id. */
const outputs: Record<string, unknown[]> = {
  authorize: [identity],
  startAuthorization: [
    { url: "https://idp.test/authorize", pending: { state: "s", codeVerifier: "v", nonce: null, redirectUri: "r", issuer: "i" } },
  ],
  finishAuthorization: [identity],
  requestLink: [{ redirect: "https://app.test/auth/verify-request" }],
  verifyLink: [identity],
  signInGate: [{ allow: true }, { allow: false, redirect: "https://app.test/elsewhere" }],
  linkIdentity: [identity],
  issueSession: [{ redirect: "https://app.test/", cookies: [] }],
  sendCode: [
    { pending: { email: "a@b.test", hash: "h", expires: 1 }, redirect: "" },
    { pending: null, redirect: "https://app.test/elsewhere" },
  ],
  checkCode: [
    { identity, retry: "" },
    { identity: null, retry: "That code is not right." },
  ],
  "totp.enter": [
    { skip: true, data: {} },
    { skip: false, data: {} },
  ],
  "totp.submit": [
    { result: "pass", data: {} },
    { result: "retry", data: {} },
  ],
}

function key(s: AnyMachineSnapshot): string {
  return JSON.stringify([s.value, s.status])
}

/** A state node's path as the state value that is in it (`["totp", "checking"]` → `{ totp: "checking" }`). */
function stateValueAt(path: readonly string[]): StateValue {
  return path.slice(0, -1).reduceRight<StateValue>((inner, name) => ({ [name]: inner }), path[path.length - 1] as string)
}

/** Every request event of the flow, and an outcome (done or error) of each effect the snapshot runs. */
function eventsOf(flow: FlowDefinition, nodes: readonly AnyStateNode[]) {
  const requests = [...new Set(flow.routes.map((r) => r.event))].map((type) => ({ type, params: {}, now: 0 }))
  return (snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    if (snapshot.status !== "active") return []
    const active = nodes.filter((node) => node.path.length > 0 && snapshot.matches(stateValueAt(node.path)))
    const invoked = active.flatMap((node) => node.invoke.map((i) => i.id))
    return [
      ...requests,
      ...invoked.flatMap((id) => [
        ...(outputs[id] ?? [{}]).map((output) => ({ type: `xstate.done.actor.${id}`, output })),
        { type: `xstate.error.actor.${id}`, error: new AuthError("effect failed") },
      ]),
    ]
  }
}

/** The flow's reachable snapshots and moves, from xstate/graph's adjacency map. */
function explore(flow: FlowDefinition) {
  const machine = flow.machine as AnyStateMachine
  const map = getAdjacencyMap(machine, {
    input: { provider: "p", now: 0 },
    events: eventsOf(flow, getStateNodes(machine.root)),
    serializeState: (s) => key(s as AnyMachineSnapshot),
  })
  const seen = new Map<string, AnyMachineSnapshot>()
  const edges = new Map<string, Set<string>>()
  for (const [from, { state, transitions }] of Object.entries(map)) {
    seen.set(from, state as AnyMachineSnapshot)
    const moves: { state: AnyMachineSnapshot }[] = Object.values(transitions)
    const tos = new Set(moves.map((move) => key(move.state)))
    tos.delete(from)
    edges.set(from, tos)
  }
  return { seen, edges }
}

const flows: [string, FlowDefinition][] = [
  ["credentials", credentialsFlow],
  ["oauth", oauthFlow],
  ["email", emailFlow],
  ["email code", emailCodeFlow],
  ["credentials + totp", extendFlow(credentialsFlow, [totpStep({ secretFor: () => "JBSWY3DPEHPK3PXP" })])],
]

describe.each(flows)("every path of the %s flow", (_, flow) => {
  const { seen, edges } = explore(flow)

  it("reaches at least one successful end and one typed failure", () => {
    const ends = [...seen.values()].filter((s) => s.status === "done")
    expect(ends.some((s) => (s.output as { ok: boolean }).ok)).toBe(true)
    expect(ends.some((s) => !(s.output as { ok: boolean }).ok)).toBe(true)
  })

  it("every end is a reply or a typed failure", () => {
    for (const s of seen.values()) {
      if (s.status !== "done") continue
      const output = s.output as { ok: boolean; reply?: { type: string }; error?: unknown }
      if (output.ok) expect(["redirect", "json", "page"]).toContain(output.reply?.type)
      else expect(output.error).toBeInstanceOf(AuthError)
    }
  })

  it("every reachable state can still end (no dead ends, no traps)", () => {
    const canEnd = new Set([...seen].filter(([, s]) => s.status === "done").map(([k]) => k))
    let grew = true
    while (grew) {
      grew = false
      for (const [from, tos] of edges) {
        if (!canEnd.has(from) && [...tos].some((t) => canEnd.has(t))) {
          canEnd.add(from)
          grew = true
        }
      }
    }
    const stuck = [...seen.keys()].filter((k) => !canEnd.has(k))
    expect(stuck).toEqual([])
  })

  it("every state that waits for input has a route that moves it", () => {
    for (const s of seen.values()) {
      if (s.status !== "active" || !s.hasTag(AWAITING_INPUT)) continue
      const accepted = flow.routes.filter((r) => {
        const [next] = transition(flow.machine as AnyStateMachine, s, { type: r.event, params: {}, now: 0 } as never)
        return key(next) !== key(s)
      })
      expect(accepted.length, `state ${JSON.stringify(s.value)} has no route`).toBeGreaterThan(0)
    }
  })
})

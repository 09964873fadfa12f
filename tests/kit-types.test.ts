/**
 * Type tests of the flow kit (`authchart/flow`), as jose and oauth4webapi keep theirs: what an effect
 * receives and answers, what a machine made with the kit's pieces accepts, what the services hand out,
 * and that the kit keeps the runtime's internals (crypto primitives, the request context's config) out.
 * `tsc` checks this file in `npm test`: an expectation that stops holding stops the build; the runtime
 * assertions check the same values exist.
 */
import { describe, expect, expectTypeOf, it } from "vitest"
import { type PromiseActorLogic, setup } from "xstate"
import type { Adapter, AdapterUser } from "authchart/adapters/types"
import type { ServerState } from "authchart"
import * as kit from "authchart/flow"
import {
  AWAITING_INPUT,
  type FlowContext,
  type FlowDefinition,
  type FlowEvent,
  type FlowServices,
  type Identity,
  type IdentityLinker,
  type Language,
  type Reply,
  type RequestServices,
  declareEffect,
  defineFlow,
  effect,
  flowBase,
  flowTypes,
  html,
  providerConfig,
  type SafeHtml,
  signInTail,
  tailActions,
  tailActors,
  tailGuards,
} from "authchart/flow"

describe("effect()", () => {
  it("gives the run the request's services and its input, and is xstate promise logic of its output", () => {
    const sendCode = effect(async (services, input: { email: string }) => {
      expectTypeOf(services).toEqualTypeOf<FlowServices>()
      expectTypeOf(input).toEqualTypeOf<{ email: string }>()
      return { sent: true as const, at: services.now }
    })
    expectTypeOf(sendCode).toEqualTypeOf<PromiseActorLogic<{ sent: true; at: number }, { email: string }>>()
    expect(typeof sendCode.start).toBe("function")
  })

  it("declareEffect types the name a machine invokes with the same output and input", () => {
    const declared = declareEffect<Identity, { params: Record<string, unknown> }>("authorize")
    expectTypeOf(declared).toEqualTypeOf<PromiseActorLogic<Identity, { params: Record<string, unknown> }>>()
  })
})

describe("the services", () => {
  it("hand out the provider, clock, origin, URLs, request and the few ports a flow needs", () => {
    expectTypeOf<FlowServices>().toMatchTypeOf<RequestServices>()
    expectTypeOf<FlowServices["callbackUrl"]>().toEqualTypeOf<string>()
    expectTypeOf<RequestServices["now"]>().toEqualTypeOf<number>()
    expectTypeOf<RequestServices["url"]>().toEqualTypeOf<URL>()
    expectTypeOf<RequestServices["request"]>().toEqualTypeOf<Request>()
    expectTypeOf<RequestServices["serverState"]>().toEqualTypeOf<ServerState>()
    expectTypeOf<RequestServices["language"]>().toEqualTypeOf<Language>()
    expectTypeOf<RequestServices["configuredAdapter"]>().toEqualTypeOf<Adapter | undefined>()
    expectTypeOf<RequestServices["secrets"][0]>().toEqualTypeOf<string>()
    expectTypeOf<RequestServices["currentUser"]>().returns.resolves.toEqualTypeOf<AdapterUser | null>()
    expectTypeOf<RequestServices["seal"]>().parameters.toEqualTypeOf<[Record<string, unknown>, string, number]>()
    expectTypeOf<RequestServices["unseal"]>().returns.resolves.toEqualTypeOf<Record<string, unknown> | null>()
    expectTypeOf<RequestServices["askSignIn"]>().returns.resolves.toEqualTypeOf<{ allow: true } | { allow: false; redirect: string }>()
  })

  it("do not hand out the runtime's config or the raw request", () => {
    expectTypeOf<FlowServices>().not.toHaveProperty("config")
    expectTypeOf<FlowServices>().not.toHaveProperty("req")
    expectTypeOf<FlowServices>().not.toHaveProperty("cookies")
  })

  it("the provider narrows on its type: providerConfig by type, or by a guard of the flow's own shape", () => {
    expectTypeOf((services: FlowServices) => providerConfig(services, "email").sendVerificationRequest).returns.toBeFunction()
    const isInvite = (config: unknown): config is { invites: string[] } =>
      typeof config === "object" && config !== null && "invites" in config
    expectTypeOf((services: FlowServices) => providerConfig(services, isInvite)).returns.toEqualTypeOf<{ invites: string[] }>()
    expectTypeOf((services: FlowServices) => providerConfig(services, "oauth", "oidc").clientId).returns.toEqualTypeOf<string | undefined>()
  })
})

describe("a machine made with the kit's pieces", () => {
  const machine = setup({
    types: flowTypes<{ email: string }>(),
    actors: { ...tailActors, check: declareEffect<Identity, { code: string }>("check") },
    guards: tailGuards,
    actions: tailActions,
  }).createMachine({
    id: "typed",
    ...flowBase,
    states: {
      idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "checking" } },
      checking: {
        invoke: { src: "check", input: ({ event }) => ({ code: String(event.params.code) }), onDone: "gate", onError: "failed" },
      },
      ...signInTail,
    },
  })

  it("keeps the shared context with the flow's pending data, and takes request events", () => {
    expectTypeOf(machine.getInitialSnapshot).returns.toHaveProperty("context").toEqualTypeOf<FlowContext<{ email: string }>>()
    expectTypeOf<FlowEvent["params"]>().toEqualTypeOf<Record<string, unknown>>()
    expectTypeOf<FlowContext<{ email: string }>["pending"]>().toEqualTypeOf<{ email: string } | null>()
    expectTypeOf<FlowContext["reply"]>().toEqualTypeOf<Reply | null>()
  })

  it("becomes a flow definition; a linker of its own gets the services", () => {
    const flow = defineFlow({
      id: "typed",
      machine,
      routes: [{ method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["code"] }],
      link: async (services, identity) => (services.adapter ? identity : identity),
    })
    expectTypeOf(flow).toEqualTypeOf<FlowDefinition>()
    expectTypeOf<IdentityLinker>().parameters.toEqualTypeOf<[FlowServices, Identity]>()
    expect(flow.version).toMatch(/^[\w-]{16}$/)
  })
})

describe("what the kit exports", () => {
  it("pages escape what they interpolate", () => {
    expectTypeOf(html`<p>${"x"}</p>`).toEqualTypeOf<SafeHtml>()
  })

  it("no crypto primitive, request internal or config reader is part of it", () => {
    for (const name of ["randomBytes", "sha256", "hmac", "hmacKey", "constantTimeEqual", "newestSecret", "sealClaims", "openClaims"]) {
      expect(kit).not.toHaveProperty(name)
    }
    for (const name of [
      "toUserRequest",
      "userRequestFor",
      "adapterOf",
      "currentUser",
      "isPlainObject",
      "askSignIn",
      "flowProviderConfig",
    ]) {
      expect(kit).not.toHaveProperty(name)
    }
    expectTypeOf(kit).not.toHaveProperty("sha256")
    expectTypeOf(kit).toHaveProperty("effect")
  })
})

/**
 * Extending flows with steps: `extendFlow(flow, [steps])` inserts one xstate state per step between
 * "identity established" (`linking`) and "session issued" (`issuing`) of a flow's machine. A step can
 * decide at once (`run`) or rest waiting for the user (`page` + `submit`): it renders a page whose form
 * posts back to `/callback/<provider>` with `step=<id>` (CSRF-checked), and resumes there. Its pending
 * state (attempts, its data) is part of the sealed snapshot in the flow store, with the flow's lifetime.
 * The extended machine is an ordinary statechart: diagrams and the inspector show the new states.
 *
 * A waiting step's page is the sign-in page's themed card by default: the step returns its form's
 * fields, the runtime adds the heading, the message of the last `retry`, the attempts left, the hidden
 * `step` and `csrfToken` fields, the button and a "Cancel and start over" link ({@link renderStepPage}).
 *
 * @example
 * ```ts
 * const terms = defineStep({
 *   id: "terms",
 *   when: ({ isNewUser }) => isNewUser === true,
 *   page: () => ({ title: "Terms of use", fields: `<label><input type="checkbox" name="accept" value="yes"> I accept</label>` }),
 *   submit: ({ params }) => params.accept === "yes" || { result: "retry", message: "Please accept the terms." },
 * })
 * const config = { flows: [extendFlow(oauthFlow, [terms])], providers: [GitHub] }
 * ```
 */
import { type AnyStateMachine, assign, createMachine } from "xstate"
import type { FlowUser } from "../../machines/types.js"
import { AWAITING_INPUT } from "../../machines/types.js"
import { type FlowContext, endsInSignInTail, tailStates } from "../../machines/setup.js"
import { type FlowDefinition, type FlowRoute, defineFlow } from "./define-flow.js"
import { type StepPageProps, renderStepPage } from "../http/pages/step.js"
import type { StepDefinition } from "./define-step.js"
import { type EnterOutput, type SubmitOutput, stepActors, stepGuards } from "./step-effects.js"
import { extended } from "../config/plain-object.js"

export { renderStepPage }
export type { FlowPageProps, StepPageContent, StepPageProps } from "../http/pages/step.js"
export { defineStep, StepFailed, type StepArgs, type StepDefinition, type StepFactors, type StepVerdict } from "./define-step.js"

/** `assign` for the untyped state configs built here: the event shape is known per transition. */
function update<E>(fn: (args: { context: FlowContext; event: E }) => Partial<FlowContext>) {
  return assign(fn as never)
}

const failed = (machineId: string) => ({
  target: `#${machineId}.failed`,
  actions: update<{ error?: unknown }>(({ event }) => ({ output: { ok: false, error: event.error } })),
})

/** The xstate state config of one step, continuing to `next` (a state id). */
function stepState(step: StepDefinition, machineId: string, next: string): Record<string, unknown> {
  const stateOf = (context: FlowContext) => context.steps[step.id]
  /** The flow's steps with this one's state replaced (the other steps' kept as they are). */
  const keep = (context: FlowContext, attempts: number, data: Record<string, unknown> | undefined) => {
    // `extended`, not a spread and a key set on it: that made each request's object a hidden class of its own
    return extended(context.steps, { [step.id]: { attempts, data } })
  }
  const page = (attempt: number, message?: string) => ({
    type: "page" as const,
    page: step.id,
    data: message ? { attempt, message } : { attempt },
  })
  return {
    initial: "entering",
    states: {
      entering: {
        invoke: {
          id: `${step.id}.enter`,
          src: `${step.id}.enter`,
          input: ({ context }: { context: FlowContext }) => ({ identity: context.identity, state: stateOf(context) }),
          onDone: [
            {
              guard: "stepSkipped",
              target: `#${machineId}.${next}`,
            },
            {
              target: "waiting",
              actions: update<{ output: EnterOutput }>(({ context, event }) => {
                const attempts = stateOf(context)?.attempts ?? 0
                return { steps: keep(context, attempts, event.output.data), reply: page(attempts) }
              }),
            },
          ],
          onError: failed(machineId),
        },
      },
      waiting: { tags: [AWAITING_INPUT], on: { STEP: { target: "checking" } } },
      checking: {
        invoke: {
          id: `${step.id}.submit`,
          src: `${step.id}.submit`,
          input: ({ context, event }: { context: FlowContext; event: { params: Record<string, unknown> } }) => ({
            identity: context.identity,
            state: stateOf(context),
            params: event.params,
          }),
          onDone: [
            {
              guard: "stepPassed",
              target: `#${machineId}.${next}`,
              actions: update<{ output: SubmitOutput }>(({ context, event }) => ({
                steps: keep(context, stateOf(context)?.attempts ?? 0, event.output.data),
                reply: null,
              })),
            },
            {
              target: "waiting",
              actions: update<{ output: SubmitOutput }>(({ context, event }) => {
                const attempts = (stateOf(context)?.attempts ?? 0) + 1
                return { steps: keep(context, attempts, event.output.data), reply: page(attempts, event.output.message) }
              }),
            },
          ],
          onError: failed(machineId),
        },
      },
    },
  }
}

/**
 * A flow with extra steps between `linking` and `issuing`, in order. The result is a new flow with the
 * same id (so it replaces the built-in in `config.flows`), new states, routes and pages.
 */
export function extendFlow(flow: FlowDefinition, steps: readonly StepDefinition[]): FlowDefinition {
  if (steps.length === 0) return flow
  const machine = flow.machine
  const { states } = machine.config
  if (!states || !endsInSignInTail(states)) {
    throw new TypeError(`extendFlow(${flow.id}): the flow does not end in the shared sign-in tail (signInTail) to extend`)
  }
  const ids = steps.map((s) => s.id)
  const [first] = ids
  if (first === undefined || new Set(ids).size !== ids.length || ids.some((id) => id in states)) {
    throw new TypeError(`extendFlow(${flow.id}): step ids must be unique and not clash with states`)
  }
  const stepStates = Object.fromEntries(steps.map((step, i) => [step.id, stepState(step, machine.id, ids[i + 1] ?? "issuing")]))
  // the tail's extension point: linking continues to the first step, and the last step to `issuing`
  const config = { ...machine.config, states: { ...states, ...tailStates(first), ...stepStates } }
  const implementations = { ...machine.implementations, guards: { ...machine.implementations.guards, ...stepGuards } }
  const extended: AnyStateMachine = createMachine(config, implementations)
  const routes: FlowRoute[] = [
    ...flow.routes,
    ...steps
      .filter((s) => s.page)
      .map((s) => ({
        method: "POST" as const,
        action: "callback" as const,
        step: s.id,
        event: "STEP",
        csrf: true,
        params: "body" as const,
      })),
    // reloading a step's page (GET on the callback URL) shows it again; see the engine
    ...(flow.routes.some((r) => r.method === "GET" && r.action === "callback")
      ? []
      : [{ method: "GET" as const, action: "callback" as const, event: "SHOW", params: [] }]),
  ]
  const pages = { ...(flow.pages ?? {}) }
  for (const step of steps) {
    const page = step.page
    if (!page) continue
    const maxAttempts = step.maxAttempts ?? 5
    pages[step.id] = (props) => {
      // one literal, so every request's props have the same shape
      const full: StepPageProps = {
        step: props.step,
        action: props.action,
        csrfToken: props.csrfToken,
        message: props.message,
        attempt: props.attempt,
        data: props.data,
        theme: props.theme,
        nonce: props.nonce,
        cancelUrl: props.cancelUrl,
        language: props.language,
        maxAttempts,
      }
      return renderStepPage(full, page(full))
    }
  }
  return defineFlow({
    ...flow,
    machine: extended,
    routes,
    pages,
    actors: { ...(flow.actors ?? {}), ...Object.assign({}, ...steps.map(stepActors)) },
  })
}

export type { FlowUser }

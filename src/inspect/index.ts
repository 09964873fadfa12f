/**
 * `authchart/inspect`: see your sign-in flows while you develop. A live page under the auth routes
 * (default `/auth/__inspect`) with a diagram of every flow, the recent flows with their current state
 * highlighted, and the event timeline of the one you pick; a console timeline; Mermaid diagram export.
 * Everything shown is the redacted inspection stream: state names, event types, effect names, error
 * types. Never a context, a parameter, a token, a code or a password.
 *
 * @example
 * ```ts
 * import { createInspector } from "authchart/inspect"
 * const inspector = createInspector()
 * app.use("/auth", ExpressAuth({ ...authConfig, inspect: inspector.inspect, routes: inspector.routes }))
 * // open http://localhost:3000/auth/__inspect
 * ```
 * @packageDocumentation
 */
import type { Handled, RequestContext, ResponseInternal } from "../runtime/http/context.js"
import { isAuthAction } from "../runtime/config/env.js"
import type { FlowDefinition } from "../runtime/engine/define-flow.js"
import type { Inspector } from "../runtime/engine/inspection.js"
import { pageHeaders, pageNonce } from "../runtime/http/pages/csp.js"
import { json } from "../runtime/http/respond.js"
import type { Route } from "../runtime/front/routes.js"
import { type ConsoleInspectorOptions, consoleInspector } from "./console.js"
import { type MachineDiagram, machineDiagram } from "./diagram.js"
import { FlowLog, type FlowRecord } from "./flow-log.js"
import { mermaidBundle, mermaidBundlePath } from "./mermaid-asset.js"
import { type PageDiagram, renderPage } from "./page.js"
import { eventStream } from "./sse.js"

export { consoleInspector, formatEvent, type ConsoleInspectorOptions } from "./console.js"
export { flowDiagrams, machineDiagram, toMermaid, type MachineDiagram } from "./diagram.js"
export type { FlowRecord, FlowStatus, FlowSummary, FlowUpdate } from "./flow-log.js"
export type { InspectionEvent, Inspector } from "../runtime/engine/inspection.js"

/** Options of `createInspector`. */
export interface InspectorOptions {
  /** The page's action under the base path; the feed, snapshot and Mermaid routes add `-events`, `-state`, `-mermaid`. Default `__inspect`. */
  path?: string
  /** Serve and record even when `NODE_ENV` is `production`. Default false: every route answers 404 there. */
  force?: boolean
  /** More flows to draw besides the config's (built-in and extended flows are always drawn). */
  flows?: readonly FlowDefinition[]
  /** Flows kept in memory, least recently active forgotten first. Default 50. */
  maxFlows?: number
  /** Events kept per flow, oldest dropped first. Default 200. */
  maxEvents?: number
  /** Also print the timeline to the terminal (`true`, or the console inspector's options). */
  console?: boolean | ConsoleInspectorOptions
}

/** What `createInspector` returns: the stream's sink and the page's routes, to put in the config. */
export interface InspectorHandle {
  /** For `config.inspect`. */
  readonly inspect: Inspector
  /** For `config.routes`. */
  readonly routes: Route[]
  /** The recent flows, most recently active first. */
  flows(): FlowRecord[]
  /** Open live feeds (Server-Sent Events connections). */
  connections(): number
}

const NOT_FOUND: ResponseInternal = { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" }, body: "Not Found" }

/**
 * The page's security headers: its style and script by nonce, the live feed from its own origin, no
 * form, never framed. Mermaid's SVGs position with `style` attributes, which cannot carry a nonce.
 */
function inspectorHeaders(nonce: string): Record<string, string> {
  return pageHeaders({ nonce, connect: ["'self'"], styleAttributes: true })
}

/**
 * The development inspector: an `Inspector` that records the recent flows, and the routes of its page.
 * Spread both into the config. With `NODE_ENV=production` it records nothing and its routes answer 404,
 * unless `force` is set.
 *
 * @example
 * ```ts
 * const inspector = createInspector({ console: true })
 * const config = { ...authConfig, inspect: inspector.inspect, routes: inspector.routes }
 * ```
 */
export function createInspector(options: InspectorOptions = {}): InspectorHandle {
  const path = options.path ?? "__inspect"
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(path) || isAuthAction(path)) {
    throw new TypeError(`createInspector: path "${path}" must be one URL segment that is not an Auth.js action`)
  }
  const log = new FlowLog(Math.max(1, options.maxFlows ?? 50), Math.max(1, options.maxEvents ?? 200))
  const enabled = () => options.force === true || process.env.NODE_ENV !== "production"
  const tee = options.console ? consoleInspector(options.console === true ? {} : options.console) : undefined
  const diagrams = new WeakMap<FlowDefinition, MachineDiagram>()
  let connections = 0

  const diagramOf = (flow: FlowDefinition): PageDiagram => {
    let diagram = diagrams.get(flow)
    if (!diagram) {
      diagram = machineDiagram(flow.machine)
      diagrams.set(flow, diagram)
    }
    return { id: flow.id, ...diagram }
  }
  const flowsOf = (ctx: RequestContext): FlowDefinition[] => {
    const all = new Map(ctx.config.flows)
    for (const flow of options.flows ?? []) if (!all.has(flow.id)) all.set(flow.id, flow)
    return [...all.values()]
  }
  const guarded =
    (handle: (ctx: RequestContext) => Promise<ResponseInternal>) =>
    async (ctx: RequestContext): Promise<Handled> => ({ response: enabled() ? await handle(ctx) : NOT_FOUND })

  const page = async (ctx: RequestContext): Promise<ResponseInternal> => {
    const nonce = pageNonce()
    const url = (suffix: string) => `${ctx.basePath}/${path}${suffix}`
    const html = renderPage({
      diagrams: flowsOf(ctx).map(diagramOf),
      eventsUrl: url("-events"),
      stateUrl: url("-state"),
      mermaidUrl: mermaidBundlePath() ? url("-mermaid") : undefined,
      nonce,
    })
    return { status: 200, headers: inspectorHeaders(nonce), body: html }
  }
  const events = async (): Promise<ResponseInternal> => {
    connections++
    const body = eventStream(log, () => connections--)
    return {
      status: 200,
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-cache, no-transform",
        "X-Accel-Buffering": "no",
        "X-Content-Type-Options": "nosniff",
      },
      body,
    }
  }
  const state = async (ctx: RequestContext): Promise<ResponseInternal> =>
    json({ flows: log.list(), diagrams: flowsOf(ctx).map((f) => ({ id: f.id, mermaid: diagramOf(f).mermaid })) }, 200, {
      "Cache-Control": "private, no-cache, no-store",
    })
  const mermaid = async (): Promise<ResponseInternal> => {
    const bundle = await mermaidBundle()
    if (bundle === undefined) return NOT_FOUND
    return {
      status: 200,
      headers: {
        "Content-Type": "text/javascript; charset=utf-8",
        "Cache-Control": "private, max-age=3600",
        "X-Content-Type-Options": "nosniff",
      },
      body: bundle,
    }
  }

  return {
    inspect: (event) => {
      if (!enabled()) return
      log.add(event)
      tee?.(event)
    },
    routes: [
      { method: "GET", action: path, provider: false, handle: guarded(page) },
      { method: "GET", action: `${path}-events`, provider: false, handle: guarded(events) },
      { method: "GET", action: `${path}-state`, provider: false, handle: guarded(state) },
      { method: "GET", action: `${path}-mermaid`, provider: false, handle: guarded(mermaid) },
    ],
    flows: () => log.list(),
    connections: () => connections,
  }
}

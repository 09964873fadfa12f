/**
 * `npm run bench:oidc`: the OIDC part of `npm run bench` alone (bench/oidc.ts), on fresh apps: the same
 * provider, clients, loops, warm-up and durations (BENCH_OIDC_CONCURRENCY, BENCH_OIDC_WARMUP,
 * BENCH_OIDC_DURATION), repeated BENCH_OIDC_ROUNDS times (1 by default) on the same two processes so
 * that later rounds show what a longer-running app costs. Unlike the full bench the apps have served
 * nothing else before; each round prints the app's CPU per sign-in and its split by thread.
 * BENCH_OIDC_PHASED=<n> then runs, per side and alternating, n sign-ins as the bench runs them (loops,
 * the app idle while the provider works) and n phase by phase as `npm run bench:steps` does (the app
 * busy from request to request): the same code, warm, with and without a wake-up per request.
 * BENCH_OIDC_IDLE_CURVE=<s> then, twice per side and alternating, leaves the app idle that many seconds
 * and prints its CPU per sign-in in 1 s windows of load (BENCH_OIDC_CURVE_WINDOWS, 12): what a sign-in
 * costs after an idle, and how long the app takes to settle.
 */
import { type OidcServer, startOidcProvider } from "../tests/support/oidc-provider.js"
import { type App, LABEL, SIDES, type Side, freePort, killAll, startApp, stopApp } from "./children.js"
import {
  IDP_CLIENT_SECRET,
  OIDC_CONCURRENCY,
  OIDC_DURATION_S,
  OIDC_WARMUP_S,
  type OidcStep,
  benchOidc,
  idpClientId,
  oidcLoad,
  oidcSignIn,
} from "./oidc.js"
import { type ThreadUse, sampleThreads, threadUse } from "./threads.js"
import { IDP_ENV, IDP_KEEP_ALIVE_MS, IDP_PROVIDER_ID } from "./shared.js"
import { loadavg } from "node:os"

const ROUNDS = Math.max(1, Number(process.env.BENCH_OIDC_ROUNDS ?? 1))
/** BENCH_OIDC_PHASED=<n>: after the rounds, n sign-ins in loops against n phase by phase, alternating, 3 times per side. */
const PHASED = Number(process.env.BENCH_OIDC_PHASED ?? 0)
/** BENCH_OIDC_IDLE_CURVE=<s>: after the rounds, the CPU per sign-in in 1 s windows after s seconds idle. */
const IDLE_CURVE_S = Number(process.env.BENCH_OIDC_IDLE_CURVE ?? 0)
const CURVE_WINDOWS = Number(process.env.BENCH_OIDC_CURVE_WINDOWS ?? 12)
/** BENCH_OIDC_APP_FLAGS: node flags for both app children (e.g. V8's tier-up settings, to see what JIT warm-up costs). */
const APP_FLAGS = (process.env.BENCH_OIDC_APP_FLAGS ?? "").split(" ").filter(Boolean)

/** The steps a sign-in passes, in order; the app serves the first, second and fourth. */
const STEPS: readonly OidcStep[] = ["csrf", "start", "provider", "callback", "done"]
const APP_STEPS: ReadonlySet<OidcStep> = new Set(["csrf", "start", "callback"])

/**
 * `n` sign-ins run phase by phase, as `npm run bench:steps` runs a flow: every sign-in ends a step
 * before any starts the next, OIDC_CONCURRENCY requests in flight within a step, so the app is never
 * idle between requests. The app's CPU counts over its own three steps only (the provider's step
 * between them is outside).
 */
async function phased(app: App, idp: OidcServer, n: number): Promise<{ use: ThreadUse; ok: number }> {
  const pid = app.child.pid
  const use: ThreadUse = { mainMs: 0, mainRuns: 0, otherMs: 0, otherThreads: 0 }
  const arrived = STEPS.map(() => 0)
  const opened = STEPS.map(() => {
    let open = () => {}
    const promise = new Promise<void>((resolve) => {
      open = resolve
    })
    return { promise, open }
  })
  let since = sampleThreads(pid)
  let slots = OIDC_CONCURRENCY
  const queue: (() => void)[] = []
  const acquire = () => (slots > 0 ? (slots--, Promise.resolve()) : new Promise<void>((resolve) => queue.push(resolve)))
  const releaseSlot = () => {
    const next = queue.shift()
    if (next) next()
    else slots++
  }
  const arrive = (k: number) => {
    if (++arrived[k]! < n) return
    // every sign-in has left step k - 1: that phase is over
    const now = sampleThreads(pid)
    if (k > 0 && APP_STEPS.has(STEPS[k - 1]!)) {
      const part = threadUse(pid, since, now)
      use.mainMs += part.mainMs
      use.mainRuns += part.mainRuns
      use.otherMs += part.otherMs
      use.otherThreads = Math.max(use.otherThreads, part.otherThreads)
    }
    since = now
    opened[k]!.open()
  }
  const one = async () => {
    let at = -1
    const gate = async (step: OidcStep) => {
      if (at >= 0) releaseSlot()
      at = STEPS.indexOf(step)
      arrive(at)
      await opened[at]!.promise
      if (step !== "done") await acquire()
    }
    const r = await oidcSignIn(app, idp, gate)
    // a failed sign-in stops early: it counts as arrived at every later step
    if (at >= 0 && STEPS[at] !== "done") releaseSlot()
    for (let k = at + 1; k < STEPS.length; k++) arrive(k)
    return r.ok
  }
  const results = await Promise.all(Array.from({ length: n }, one))
  return { use, ok: results.filter(Boolean).length }
}

/** `n` sign-ins in OIDC_CONCURRENCY loops, as the bench runs them: the app's CPU over the whole run. */
async function looped(app: App, idp: OidcServer, n: number): Promise<{ use: ThreadUse; ok: number }> {
  const before = sampleThreads(app.child.pid)
  let next = 0
  let ok = 0
  const loop = async () => {
    while (next++ < n) if ((await oidcSignIn(app, idp)).ok) ok++
  }
  await Promise.all(Array.from({ length: OIDC_CONCURRENCY }, loop))
  return { use: threadUse(app.child.pid, before, sampleThreads(app.child.pid)), ok }
}

const perSignIn = ({ use, ok }: { use: ThreadUse; ok: number }) =>
  `${((use.mainMs + use.otherMs) / ok).toFixed(2)} ms (main ${(use.mainMs / ok).toFixed(2)} in ${(use.mainRuns / ok).toFixed(1)} wake-ups + other ${(use.otherMs / ok).toFixed(2)})`

async function main(): Promise<void> {
  const ports = {} as Record<Side, number>
  for (const side of SIDES) ports[side] = await freePort()
  const idp = await startOidcProvider({
    clients: SIDES.map((side) => ({
      client_id: idpClientId(side),
      client_secret: IDP_CLIENT_SECRET,
      redirect_uris: [`http://127.0.0.1:${ports[side]}/auth/callback/${IDP_PROVIDER_ID}`],
    })),
    keepAliveTimeoutMs: IDP_KEEP_ALIVE_MS,
  })
  const apps = {} as Record<Side, App>
  try {
    for (const side of SIDES) {
      const env = { [IDP_ENV.issuer]: idp.issuer, [IDP_ENV.clientId]: idpClientId(side), [IDP_ENV.clientSecret]: IDP_CLIENT_SECRET }
      apps[side] = await startApp(side, ports[side], env, APP_FLAGS)
    }
    console.error(
      `OIDC sign-in alone: ${OIDC_CONCURRENCY} loops, ${OIDC_WARMUP_S} s warm-up + ${OIDC_DURATION_S} s per side, ${ROUNDS} round(s); ` +
        `load average ${loadavg()
          .map((l) => l.toFixed(2))
          .join(" ")}`,
    )
    const rows: string[] = []
    for (let round = 1; round <= ROUNDS; round++) {
      console.error(`\nround ${round}`)
      const out = await benchOidc(apps, idp)
      const figure = (side: Side) => out[side].result?.appCpuMsPerSignIn ?? Number.NaN
      rows.push(
        `round ${round}: ${SIDES.map((side) => `${LABEL[side]} ${figure(side).toFixed(2)} ms`).join(", ")}, ` +
          `${(figure("authjs") / figure("authchart")).toFixed(2)}× less; load average ${loadavg()[0]!.toFixed(2)}`,
      )
    }
    for (let i = 0; PHASED > 0 && i < 3; i++) {
      for (const side of SIDES) {
        const loops = await looped(apps[side], idp, PHASED)
        const phases = await phased(apps[side], idp, PHASED)
        rows.push(
          `${LABEL[side]}: ${PHASED} sign-ins in ${OIDC_CONCURRENCY} loops ${perSignIn(loops)}; phase by phase ${perSignIn(phases)}; ` +
            `load average ${loadavg()[0]!.toFixed(2)}`,
        )
        console.error(rows.at(-1))
      }
    }
    for (let i = 0; IDLE_CURVE_S > 0 && i < 2; i++) {
      for (const side of SIDES) {
        await new Promise((resolve) => setTimeout(resolve, IDLE_CURVE_S * 1000))
        const windows: string[] = []
        for (let w = 0; w < CURVE_WINDOWS; w++) {
          const { threads, ok } = await oidcLoad(apps[side], idp, 1)
          windows.push(ok > 0 ? ((threads.mainMs + threads.otherMs) / ok).toFixed(2) : "n/a")
        }
        rows.push(`${LABEL[side]}: ms per sign-in in 1 s windows after ${IDLE_CURVE_S} s idle: ${windows.join(" ")}`)
        console.error(rows.at(-1))
      }
    }
    console.log(rows.join("\n"))
  } finally {
    for (const side of SIDES) if (apps[side]) await stopApp(apps[side])
    await idp.stop()
  }
}

main().catch((err) => {
  console.error(err)
  killAll()
  process.exit(1)
})

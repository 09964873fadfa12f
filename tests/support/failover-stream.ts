/**
 * A Redis Cluster failover under a stream of OIDC sign-ins through two app instances. First a "given"
 * flow is started and a database session is made whose key lives on the same master as that flow; then
 * the master is killed (SIGKILL) while workers keep signing in and a probe reads that session every
 * 100 ms, until the replica is promoted and sign-ins succeed again (or a cap).
 *
 * Each answer is classified: ok, a documented failure (`error=Configuration`: Redis did not answer;
 * `error=FlowStateError`: the flow was lost; a `null` session: the session could not be read), or
 * undocumented (a 500, a request past its 5 s timeout, anything else). Used by
 * tests/cluster-instances.test.ts.
 */
import { setTimeout as sleep } from "node:timers/promises"
import type { Instances } from "../multi-instance-scenarios.js"
import { HttpBrowser } from "./app-process.js"
import type { AuthorizeResult } from "./oidc-provider.js"
import type { ClusterNode, RedisClusterHandle } from "./redis-cluster.js"

const ACCOUNTS = ["alice@example.test", "bob@example.test"]
const REQUEST_TIMEOUT_MS = 5_000
const FLOW_COOKIE = "authchart.flow.idp"
const SESSION = "authjs.session-token"

type Answer = "ok" | "Configuration" | "FlowStateError" | "no session" | `undocumented: ${string}`

export interface Attempt {
  startedAt: number
  endedAt: number
  /** When the flow was saved (the sign-in POST answered), if it was. */
  savedAt?: number
  answer: Answer
}

/** One read of the probed session: when, how long it took, what it answered. */
export interface Probe {
  at: number
  ms: number
  answer: "readable" | "null" | `undocumented: ${string}`
}

export interface StreamOptions {
  /** Sign-ins in flight at once. */
  workers: number
  /** How long to keep streaming once sign-ins succeed again after the promotion. */
  settleAfterMs: number
  /** Upper bound on the whole stream after the kill. */
  capMs: number
}

export interface FailoverReport {
  killed: ClusterNode
  promoted: ClusterNode
  killedAt: number
  promotedAt: number
  attempts: Attempt[]
  failures: Attempt[]
  probes: Probe[]
  /** Failures of the stream and the probe that are not a documented answer. */
  undocumented: string[]
  /** The first probe after the kill that read the session again (ms since the epoch), or null. */
  sessionBackAt: number | null
  /** Start of the trailing run of successful sign-ins (ms since the epoch), or null if none. */
  recoveredAt: number | null
  trailingSuccesses: number
  /** Sign-ins whose flow was saved before the kill and that did not complete. */
  lostFlows: number
  summary: string
  /** Finishes the given flow (started before the kill): how it ended. */
  completeGiven(): Promise<"completed" | Answer>
}

function classify(location: string | null, base: string): Answer {
  if (location === `${base}/auth/error?error=Configuration`) return "Configuration"
  if (location === `${base}/auth/signin?error=FlowStateError`) return "FlowStateError"
  return `undocumented: redirect to ${location}`
}

/** One complete OIDC sign-in, every step on the other instance than the one before. */
async function attempt(on: Instances, browser: HttpBrowser, account: string): Promise<Attempt> {
  const startedAt = Date.now()
  const done = (answer: Answer, savedAt?: number): Attempt => ({ startedAt, endedAt: Date.now(), answer, ...(savedAt ? { savedAt } : {}) })
  try {
    const csrfToken = await browser.csrf()
    const start = await browser.send("/auth/signin/idp", { form: { csrfToken } })
    if (!start.location?.startsWith(on.idp.issuer)) return done(classify(start.location, start.base))
    const savedAt = Date.now()
    const answer = (await on.idp.authorize(start.location, { account })) as AuthorizeResult
    if (answer.kind !== "redirect") return done(`undocumented: provider answered ${answer.kind}`, savedAt)
    const callback = await browser.send(answer.url)
    if (callback.location !== callback.base) return done(classify(callback.location, callback.base), savedAt)
    const read = await browser.send("/auth/session")
    if (read.text === "null") return done("no session", savedAt)
    const email = (JSON.parse(read.text) as { user?: { email?: string } }).user?.email
    return done(email === account ? "ok" : `undocumented: session of ${email}`, savedAt)
  } catch (err) {
    return done(`undocumented: ${(err as Error).name}: ${(err as Error).message}`)
  }
}

/** A signed-in session cookie whose session key lives on `master` (sign-ins until one lands there). */
async function sessionOn(on: Instances, cluster: RedisClusterHandle, master: ClusterNode): Promise<string> {
  for (let i = 0; i < 40; i++) {
    const browser = new HttpBrowser(on.bases, i % 2, REQUEST_TIMEOUT_MS)
    const result = await attempt(on, browser, ACCOUNTS[0] as string)
    const token = browser.cookie(SESSION)
    if (result.answer === "ok" && token && (await cluster.masterOf(`app:session:${token}`)).port === master.port)
      return `${SESSION}=${token}`
  }
  throw new Error(`no session landed on :${master.port} in 40 sign-ins`)
}

async function probe(base: string, cookie: string): Promise<Probe> {
  const at = Date.now()
  try {
    const res = await fetch(`${base}/auth/session`, { headers: { cookie }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    const text = await res.text()
    const answer = res.status !== 200 ? (`undocumented: ${res.status}` as const) : text === "null" ? "null" : "readable"
    return { at, ms: Date.now() - at, answer }
  } catch (err) {
    return { at, ms: Date.now() - at, answer: `undocumented: ${(err as Error).name}` }
  }
}

const trailing = (attempts: readonly Attempt[]) => {
  const sorted = [...attempts].sort((a, b) => a.startedAt - b.startedAt)
  let n = 0
  while (n < sorted.length && sorted[sorted.length - 1 - n]?.answer === "ok") n++
  return { count: n, from: n > 0 ? (sorted[sorted.length - n] as Attempt).startedAt : null }
}

/** Runs the stream, kills the given flow's master, and reports what happened. */
export async function signInStream(on: Instances, cluster: RedisClusterHandle, options: StreamOptions): Promise<FailoverReport> {
  const given = new HttpBrowser(on.bases, 0, REQUEST_TIMEOUT_MS)
  const givenStart = await given.send("/auth/signin/idp", { form: { csrfToken: await given.csrf() } })
  const flowKey = `app:flow:${FLOW_COOKIE}:${given.cookie(FLOW_COOKIE)}`
  const [killed, slot] = await Promise.all([cluster.masterOf(flowKey), cluster.slotOf(flowKey)])
  const probed = await sessionOn(on, cluster, killed)
  // every account of the stream exists before the kill: a first sign-in caught by the kill between
  // createUser and linkAccount leaves a user without its account (OAuthAccountNotLinked from then on),
  // which is the adapter's two writes, not the failover this measures
  for (const [i, account] of ACCOUNTS.entries()) {
    const warmed = await attempt(on, new HttpBrowser(on.bases, i % 2, REQUEST_TIMEOUT_MS), account)
    if (warmed.answer !== "ok") throw new Error(`warm-up sign-in of ${account}: ${warmed.answer}`)
  }

  // and is on the replica too: a master killed before its replica has a record loses it for good (Redis
  // replicates asynchronously), and an account or the probed session would then be gone
  const unreplicated = await cluster.unreplicated("app:*", 5_000)
  if (unreplicated.length > 0) throw new Error(`records a failover would lose, before the kill: ${unreplicated.join(", ")}`)

  const attempts: Attempt[] = []
  const probes: Probe[] = []
  let stopping = false
  const worker = async (w: number) => {
    for (let i = 0; !stopping; i++) {
      const browser = new HttpBrowser(on.bases, (w + i) % 2, REQUEST_TIMEOUT_MS)
      attempts.push(await attempt(on, browser, ACCOUNTS[(w + i) % ACCOUNTS.length] as string))
    }
  }
  const prober = async () => {
    for (let i = 0; !stopping; i++) {
      probes.push(await probe(on.bases[i % 2] as string, probed))
      await sleep(100)
    }
  }
  const running = [...Array.from({ length: options.workers }, (_, w) => worker(w)), prober()]
  await sleep(500)
  const killedAt = Date.now()
  await killed.kill()
  const promoted = await cluster.waitUntilServed(slot, options.capMs)
  const promotedAt = Date.now()
  const backAt = () =>
    probes.find((p) => p.at > killedAt && p.answer === "readable" && probes.some((q) => q.at > killedAt && q.at < p.at))?.at
  while (Date.now() < killedAt + options.capMs) {
    const run = trailing(attempts)
    const settled = run.from !== null && run.from > promotedAt && run.count >= 10 && Date.now() > run.from + options.settleAfterMs
    if (settled && backAt() !== undefined) break
    await sleep(100)
  }
  stopping = true
  await Promise.all(running)

  const failures = attempts.filter((a) => a.answer !== "ok")
  const undocumented = [...failures.map((a) => a.answer), ...probes.map((p) => p.answer)].filter((a) => a.startsWith("undocumented"))
  const lostFlows = failures.filter((a) => a.savedAt !== undefined && a.savedAt < killedAt).length
  const run = trailing(attempts)
  const sessionBackAt = backAt() ?? null
  const rel = (t: number | null) => (t === null ? "never" : `${((t - killedAt) / 1000).toFixed(2)} s`)
  const tally = (answers: readonly string[]) => {
    const counts: Record<string, number> = {}
    for (const answer of answers) counts[answer] = (counts[answer] ?? 0) + 1
    return counts
  }
  const window = probes.filter((p) => p.at > killedAt && p.answer !== "readable")
  const summary = [
    `failover: killed master :${killed.port} (slot ${slot}); replica :${promoted.port} promoted after ${rel(promotedAt)}`,
    `the probed session (on that master) unreadable for ${window.length} reads (slowest ${Math.max(0, ...window.map((p) => p.ms))} ms), readable again ${rel(sessionBackAt)} after the kill`,
    `${attempts.length} sign-ins, ${failures.length} failed ${JSON.stringify(tally(failures.map((a) => a.answer)))}; succeeding again from ${rel(run.from)} (${run.count} in a row)`,
    `lost flows (saved before the kill, not completed): ${lostFlows}`,
  ].join("\n  ")
  return {
    killed,
    promoted,
    killedAt,
    promotedAt,
    attempts,
    failures,
    probes,
    undocumented,
    sessionBackAt,
    recoveredAt: run.from,
    trailingSuccesses: run.count,
    lostFlows,
    summary,
    async completeGiven() {
      const answer = (await on.idp.authorize(givenStart.location as string)) as AuthorizeResult
      if (answer.kind !== "redirect") return `undocumented: provider answered ${answer.kind}`
      const callback = await given.send(answer.url)
      return callback.location === callback.base ? "completed" : classify(callback.location, callback.base)
    },
  }
}

/**
 * `tsx bench/oidc-http-ab.ts <checkout A> [<checkout B>]`: the OIDC sign-in over HTTP (GET /auth/csrf,
 * the start POST, the provider, the callback with its token request: bench/oidc.ts' `oidcLoad`) for two
 * checkouts' authchart bench apps side by side, against one OpenID provider (each app its own client),
 * in alternating blocks (A B B A …, BLOCK_S seconds each, BLOCKS blocks per side after WARM_S seconds
 * of warm-up per side). Each app's CPU per sign-in comes from /proc (all its threads). On a shared
 * machine the load moves between blocks; the paired ratio B/A of adjacent blocks is the figure to read.
 * The apps load authchart from their checkout's sources through tsx (BENCH_FROM=src), so neither needs a
 * build; the transform costs both the same.
 */
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { startOidcProvider } from "../tests/support/oidc-provider.js"
import { type App, freePort, killAll, startApp, stopApp } from "./children.js"
import { IDP_CLIENT_SECRET, oidcLoad } from "./oidc.js"
import { IDP_ENV, IDP_KEEP_ALIVE_MS, IDP_PROVIDER_ID } from "./shared.js"

const WARM_S = Number(process.env.WARM_S ?? 15)
const BLOCK_S = Number(process.env.BLOCK_S ?? 4)
const BLOCKS = Number(process.env.BLOCKS ?? 8)

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = s.length >> 1
  return s.length % 2 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

async function main(): Promise<void> {
  const roots = [resolve(process.argv[2] ?? "/work/main"), resolve(process.argv[3] ?? ".")] as const
  const ports = [await freePort(), await freePort()]
  const clientId = (i: number) => `bench-ab-${i}`
  const idp = await startOidcProvider({
    clients: ports.map((port, i) => ({
      client_id: clientId(i),
      client_secret: IDP_CLIENT_SECRET,
      redirect_uris: [`http://127.0.0.1:${port}/auth/callback/${IDP_PROVIDER_ID}`],
    })),
    keepAliveTimeoutMs: IDP_KEEP_ALIVE_MS,
  })
  const apps: App[] = []
  try {
    for (const [i, root] of roots.entries()) {
      const env = {
        [IDP_ENV.issuer]: idp.issuer,
        [IDP_ENV.clientId]: clientId(i),
        [IDP_ENV.clientSecret]: IDP_CLIENT_SECRET,
        BENCH_FROM: "src",
      }
      apps.push(await startApp("authchart", ports[i] ?? 0, env, [], root))
    }
    console.error(
      `load average before: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}`,
    )
    for (const app of apps) await oidcLoad(app, idp, WARM_S)
    const perSignIn: number[][] = [[], []]
    for (let block = 0; block < BLOCKS; block++) {
      for (const i of block % 2 === 0 ? [0, 1] : [1, 0]) {
        const app = apps[i]
        if (!app) continue
        const raw = await oidcLoad(app, idp, BLOCK_S)
        if (raw.failed > 0) throw new Error(`${roots[i]}: ${raw.failed} sign-ins failed: ${raw.failSamples.join("; ")}`)
        perSignIn[i]?.push((raw.appCpuMs ?? Number.NaN) / raw.ok)
      }
      console.error(
        `block ${block + 1}: A ${perSignIn[0]?.at(-1)?.toFixed(3)} ms, B ${perSignIn[1]?.at(-1)?.toFixed(3)} ms per sign-in; load ${loadavg()[0]?.toFixed(2)}`,
      )
    }
    const [a = [], b = []] = perSignIn
    console.log(`A ${roots[0]}: ${median(a).toFixed(3)} ms app CPU per sign-in (median of ${BLOCKS} blocks of ${BLOCK_S} s)`)
    console.log(`B ${roots[1]}: ${median(b).toFixed(3)} ms app CPU per sign-in`)
    console.log(
      `B/A (median of paired blocks): ${median(a.map((x, k) => (b[k] ?? 0) / x)).toFixed(3)}; load average after ${loadavg()[0]?.toFixed(2)}`,
    )
  } finally {
    for (const app of apps) await stopApp(app)
    await idp.stop()
  }
}

main()
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(err)
    killAll()
    process.exit(1)
  })

/**
 * `npm run bench:oidc`: the OIDC part of `npm run bench` alone (bench/oidc.ts), on fresh apps: the same
 * provider, clients, loops, warm-up and durations (BENCH_OIDC_CONCURRENCY, BENCH_OIDC_WARMUP,
 * BENCH_OIDC_DURATION), repeated BENCH_OIDC_ROUNDS times (1 by default) on the same two processes so
 * that later rounds show what a longer-running app costs. Unlike the full bench the apps have served
 * nothing else before; each round prints the app's CPU per sign-in and its split by thread.
 */
import { startOidcProvider } from "../tests/support/oidc-provider.js"
import { type App, LABEL, SIDES, type Side, freePort, killAll, startApp, stopApp } from "./children.js"
import { IDP_CLIENT_SECRET, OIDC_CONCURRENCY, OIDC_DURATION_S, OIDC_WARMUP_S, benchOidc, idpClientId } from "./oidc.js"
import { IDP_ENV, IDP_KEEP_ALIVE_MS, IDP_PROVIDER_ID } from "./shared.js"
import { loadavg } from "node:os"

const ROUNDS = Math.max(1, Number(process.env.BENCH_OIDC_ROUNDS ?? 1))

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
      apps[side] = await startApp(side, ports[side], env)
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

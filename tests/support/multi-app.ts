/**
 * One app instance for the many-instances tests, the fault tests and the Redis load bench, run as its own
 * process by tests/support/app-process.ts: Express 5 with `ExpressAuth`, flow state and (by default)
 * database sessions in a shared Redis. Listens on 127.0.0.1:PORT and prints `ready <port>`.
 *
 * Environment:
 * - `PORT` (0: any free port), `AUTH_SECRET` (the same on every instance), and either `REDIS_URL` (one
 *   Redis, `createClient`) or `REDIS_CLUSTER` (comma-separated node URLs: Redis Cluster, `createCluster`
 *   with `failFastClusterOptions`, as docs/scaling-out.md makes it: the stores follow its failovers themselves);
 *   every Redis-backed part takes either client
 * - `FLOW_STORE`: `redis` (default, `RedisFlowStore`) or `cookie` (the sealed cookie store)
 * - `SESSIONS`: `database` (default, `RedisAdapter` on the same Redis) or `jwt` (no adapter)
 * - `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET`: an OIDC provider with id `idp`
 * - `PROVIDER_TOKENS=<seconds>`: `session.providerTokens` with that `refreshMargin` (the `idp` sign-in then
 *   asks for `offline_access` with `prompt=consent`, so the provider issues a refresh token)
 * - `SMTP_URL`: a Nodemailer provider (needs `SESSIONS=database` or `FLOW_STORE=redis`)
 * - `SERVER_STATE`: `redis` (default, `RedisServerState`: single use, attempt counts and revocation
 *   shared by the instances) or `memory` (each instance its own)
 * - `TOTP=1`: the credentials provider with a TOTP step (tests/fixtures/credentials-with-totp.ts)
 * - `PASSKEY=1`: the Passkey provider (WebAuthn; needs `SESSIONS=database`)
 * - `RATE_LIMIT=1`: `rateLimit: { enabled: true }` (the production defaults, counted in the server
 *   state); otherwise `rateLimit: false`, also under NODE_ENV=production
 *
 * Every error the library logs is one stderr line `auth-error <type>: <message>`, followed by
 * ` [cause <name>: <message>]` when it wraps one (what Redis answered, for instance). `GET /__health`
 * answers `{ pid, redis: <client ready (cluster: open)> }`; `GET /me` is the session through `getSession`;
 * `POST /__revoke/<userId>` calls `revokeSessions` (what an admin page or a password change would do);
 * `GET /__access-token` is `getAccessToken(req, "idp")`: `{ token }`, or `{ error: <type> }` with 503.
 */
import express from "express"
import type { Request, Response } from "express"
import { createClient, createCluster } from "redis"
import type { Adapter } from "../../src/adapters/types.js"
import { RedisAdapter } from "../../src/adapters/redis.js"
import { type AuthConfig, revokeSessions } from "../../src/index.js"
import { ExpressAuth, getAccessToken, getSession } from "../../src/integration/express.js"
import Nodemailer from "../../src/providers/nodemailer.js"
import Passkey from "../../src/providers/passkey.js"
import { cookieFlowStore } from "../../src/runtime/engine/store.js"
import { RedisFlowStore, RedisServerState, failFastClusterOptions, failFastRedisOptions } from "../../src/stores/redis.js"
import { appConfig } from "../fixtures/credentials-with-totp.js"

function required(name: string): string {
  const value = process.env[name]
  if (!value) throw new Error(`multi-app: ${name} is required`)
  return value
}

/** The shared Redis: one server, or a cluster (whose failovers the stores follow). Errors never crash the process. */
async function connectRedis() {
  const nodes = process.env.REDIS_CLUSTER
  if (nodes) {
    const cluster = createCluster(failFastClusterOptions(nodes.split(",")))
    cluster.on("error", () => undefined)
    await cluster.connect()
    return { redis: cluster, ready: () => cluster.isOpen }
  }
  const client = createClient(failFastRedisOptions(required("REDIS_URL")))
  client.on("error", () => undefined) // counted as errors by the store
  await client.connect()
  return { redis: client, ready: () => client.isReady }
}

async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 0)
  const { redis, ready } = await connectRedis()

  const database = (process.env.SESSIONS ?? "database") === "database"
  const providerTokens = process.env.PROVIDER_TOKENS ? { refreshMargin: Number(process.env.PROVIDER_TOKENS) } : undefined
  const providers: unknown[] = []
  if (process.env.OIDC_ISSUER) {
    providers.push({
      id: "idp",
      name: "IdP",
      type: "oidc",
      issuer: process.env.OIDC_ISSUER,
      clientId: required("OIDC_CLIENT_ID"),
      clientSecret: required("OIDC_CLIENT_SECRET"),
      ...(providerTokens ? { authorization: { params: { scope: "openid profile email offline_access", prompt: "consent" } } } : {}),
    })
  }
  if (process.env.SMTP_URL) providers.push(Nodemailer({ server: process.env.SMTP_URL, from: "authchart <auth@example.test>" }))
  const totp = process.env.TOTP === "1" ? appConfig(required("AUTH_SECRET")) : undefined
  if (totp) providers.push(...totp.providers)
  if (process.env.PASSKEY === "1") providers.push(Passkey())

  const config: AuthConfig = {
    secret: required("AUTH_SECRET"),
    trustHost: true,
    providers: providers as AuthConfig["providers"],
    flowStore: (process.env.FLOW_STORE ?? "redis") === "redis" ? RedisFlowStore(redis, { prefix: "app:flow:" }) : cookieFlowStore(),
    ...((process.env.SERVER_STATE ?? "redis") === "redis" ? { serverState: RedisServerState(redis, { prefix: "app:state:" }) } : {}),
    ...(totp ? { flows: totp.flows } : {}),
    ...(process.env.PASSKEY === "1" ? { experimental: { enableWebAuthn: true } } : {}),
    // off unless asked: the load bench runs these processes with NODE_ENV=production from one client
    rateLimit: process.env.RATE_LIMIT === "1" ? { enabled: true } : false,
    ...(database ? { adapter: RedisAdapter(redis, { prefix: "app:" }) as Adapter } : {}),
    session: { ...(database ? { strategy: "database" as const } : {}), ...(providerTokens ? { providerTokens } : {}) },
    logger: {
      error: (error) => {
        const cause = (error as { cause?: { err?: unknown } }).cause?.err
        const detail = cause instanceof Error ? ` [cause ${cause.name}: ${cause.message}]` : ""
        process.stderr.write(`auth-error ${(error as { type?: string }).type ?? error.name}: ${error.message}${detail}\n`)
      },
      warn: () => undefined,
      debug: () => undefined,
    },
  }

  const app = express()
  app.disable("x-powered-by")
  app.use("/auth", ExpressAuth(config))
  app.get("/__health", (_req: Request, res: Response) => {
    res.json({ pid: process.pid, redis: ready() })
  })
  app.post("/__revoke/:userId", async (req: Request, res: Response, next) => {
    try {
      await revokeSessions(String(req.params.userId), config)
      res.json({ revoked: req.params.userId })
    } catch (err) {
      next(err)
    }
  })
  app.get("/__access-token", async (req: Request, res: Response) => {
    try {
      res.json({ token: await getAccessToken(req, "idp", config) })
    } catch (err) {
      res.status(503).json({ error: (err as { type?: string }).type ?? String(err) })
    }
  })
  app.get("/me", async (req: Request, res: Response, next) => {
    try {
      res.json(await getSession(req, config, res))
    } catch (err) {
      next(err)
    }
  })

  const server = app.listen(port, "127.0.0.1", () => {
    const address = server.address()
    process.stdout.write(`ready ${typeof address === "object" && address ? address.port : port}\n`)
  })
  server.on("error", (err) => {
    console.error(err)
    process.exit(1)
  })
  const stop = () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
  process.on("SIGTERM", stop)
  process.on("SIGINT", stop)
  process.stdin.on("end", () => process.exit(0))
  process.stdin.resume()
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})

/**
 * The steps bench's floor for two steps (bench/app.ts with BENCH_STEPS=1): Express routes that do only
 * what a step cannot skip, with the library's own parts (the integration's body and response, its JWE,
 * digest, TOTP and passkey checks) and none of its machinery: no machine, no rate limit, no callbacks or
 * events, no flow plumbing. The load generator sends each the same requests as the real step, right before
 * it (bench/loadgen.ts; BENCH_STEPS_ESSENTIAL=0 leaves them out), so `npm run bench:steps` shows what this
 * crypto and this integration cost on this machine beside what the step costs: the part of a step that no
 * implementation of it can take away.
 *
 * Each keeps the checks a step needs to be safe, so the floor is not cheaper for skipping one: the CSRF
 * double submit (checked cookies kept, as the library keeps them), the flow state's JWE, expiry, flow and
 * provider, the flow claimed once, the code (or the assertion: challenge, origin, RP ID, flags, counter,
 * signature) checked, the code claimed once, a session JWE sealed, the flow cookie cleared, a redirect.
 */
import { randomUUID } from "node:crypto"
import type { Request, RequestHandler, Response } from "express"
import { BENCH_SECRET, CSRF_COOKIE, SESSION_COOKIE } from "./shared.js"
import { benchTotpSecret } from "./totp-secret.js"

/** Loads an authchart module (bench/app.ts: from dist, or src with BENCH_FROM=src). */
type Load = (path: string) => Promise<any>

/** The adapter methods a passkey sign-in needs (the app's memory adapter). */
interface PasskeyAdapter {
  getAuthenticator(
    id: string,
  ): Promise<{ credentialID: string; credentialPublicKey: string; counter: number; providerAccountId: string } | null>
  updateAuthenticatorCounter(id: string, counter: number): Promise<unknown>
  getAccount(providerAccountId: string, provider: string): Promise<{ userId: string } | null>
  getUser(id: string): Promise<{ id: string; name?: string | null; email?: string | null } | null>
}

const options = { path: "/", httpOnly: true, sameSite: "lax" }
const refuse = (res: Response, why: string) => res.status(400).type("text").end(why)

/** What every floor route shares: the integration's request and response, the CSRF check, the flow state, the session. */
async function floorParts(load: Load) {
  const [{ readBody }, { ExpressIncoming, requestUrl }, { write }, { finish }, { resolvedFor }, jwe, digest] = await Promise.all([
    load("integration/body.js"),
    load("integration/express-request.js"),
    load("integration/express-write.js"),
    load("runtime/front/auth.js"),
    load("runtime/front/resolve.js"),
    load("runtime/crypto/sealed.js"),
    load("runtime/crypto/digest.js"),
  ])
  const resolved = resolvedFor({ secret: BENCH_SECRET, trustHost: true, providers: [] })
  const csrfChecked = new Map<string, string>()
  const claimedFlows = new Set<string>()
  const parts = {
    /** The request as the integration reads it, or undefined (refused) when its CSRF double submit fails. */
    async incoming(req: Request, res: Response) {
      const url = requestUrl(req, resolved)
      const incoming = new ExpressIncoming(req, req.method, url, await readBody(req))
      const value: string | undefined = incoming.cookies[CSRF_COOKIE]
      let token = value === undefined ? undefined : csrfChecked.get(value)
      if (token === undefined && value) {
        const [t, hash] = value.split("|")
        if (t && hash && digest.constantTimeEqual(digest.sha256(`${t}${BENCH_SECRET}`, "hex"), hash)) csrfChecked.set(value, (token = t))
      }
      const sent = incoming.body?.csrfToken
      if (!token || typeof sent !== "string" || !digest.constantTimeEqual(sent, token)) return void refuse(res, "csrf")
      return { incoming, url: url as URL }
    },
    /** The flow state's envelope, opened and checked, claimed once; undefined (refused) otherwise. */
    async flow(res: Response, cookies: Record<string, string>, name: string, flow: string, provider: string, now: number) {
      const sealed = cookies[name]
      if (!sealed) return void refuse(res, "no flow")
      const payload = await jwe.decryptJwt(sealed, [BENCH_SECRET], name)
      if (typeof payload.exp !== "number" || payload.exp * 1000 < now) return void refuse(res, "expired")
      if (payload.flow !== flow || payload.provider !== provider) return void refuse(res, "flow")
      if (claimedFlows.has(payload.flowId)) return void refuse(res, "replayed")
      claimedFlows.add(payload.flowId)
      return payload
    },
    /** A sign-in's answer: a session JWE for `user`, the flow cookie cleared, a redirect to `to`. */
    async signIn(
      res: Response,
      incoming: unknown,
      user: { id: string; name?: string | null; email?: string | null },
      flowCookie: string,
      to: string,
      now: number,
    ) {
      const iat = Math.floor(now / 1000)
      const exp = iat + 30 * 86_400
      const session = await jwe.encryptJwt(
        { name: user.name, email: user.email, sub: user.id, iat, exp, jti: randomUUID() },
        BENCH_SECRET,
        SESSION_COOKIE,
      )
      const cookies = [
        { name: SESSION_COOKIE, value: session, options: { ...options, expires: new Date(exp * 1000) } },
        { name: flowCookie, value: "", options: { ...options, maxAge: 0 } },
      ]
      write(res, finish({ response: { redirect: to, cookies } }, incoming))
    },
  }
  /** A floor route: the request read and its CSRF checked, the flow state opened and claimed, then `step`. */
  const route =
    (
      flowCookie: string,
      flow: string,
      provider: string,
      step: (got: Got, payload: any, res: Response, now: number) => Promise<void>,
    ): RequestHandler =>
    async (req, res, next) => {
      try {
        const got = await parts.incoming(req, res)
        if (!got) return
        const now = Date.now()
        const payload = await parts.flow(res, got.incoming.cookies, flowCookie, flow, provider, now)
        if (payload) await step(got, payload, res, now)
      } catch (err) {
        next(err)
      }
    }
  return { ...parts, route }
}

/** The request as {@link floorParts} reads it. */
interface Got {
  incoming: { cookies: Record<string, string>; body?: Record<string, unknown> }
  url: URL
}

/** `POST /__essential/totp-code`: the TOTP code step's floor. */
export async function totpCodeRoute(load: Load): Promise<RequestHandler> {
  const [parts, totp] = await Promise.all([floorParts(load), load("steps/totp.js")])
  const flowCookie = "authchart.flow.totp"
  const usedCodes = new Set<string>()
  const secrets = new Map<string, string>()
  return parts.route(flowCookie, "credentials-totp", "totp", async (got, payload, res, now) => {
    const user = payload.snapshot?.context?.identity?.user
    if (typeof user?.id !== "string") return void refuse(res, "no user")
    let secret = secrets.get(user.id)
    if (!secret) secrets.set(user.id, (secret = await benchTotpSecret(user.id)))
    const step = totp.verifyTotp(secret, String(got.incoming.body?.code ?? ""), now)
    if (step === null || usedCodes.has(`${user.id}:${step}`)) return void refuse(res, "code")
    usedCodes.add(`${user.id}:${step}`)
    await parts.signIn(res, got.incoming, user, flowCookie, String(payload.callbackUrl), now)
  })
}

/** `POST /__essential/passkey-authenticate`: the passkey sign-in POST's floor (its assertion verified by @simplewebauthn/server). */
export async function passkeyAuthenticateRoute(load: Load, adapter: unknown): Promise<RequestHandler> {
  const [parts, support, lib] = await Promise.all([
    floorParts(load),
    load("runtime/engine/effects/webauthn-support.js"),
    import("@simplewebauthn/server"),
  ])
  const store = adapter as PasskeyAdapter
  const flowCookie = "authchart.flow.passkey"
  return parts.route(flowCookie, "webauthn", "passkey", async (got, payload, res, now) => {
    const challenge = payload.snapshot?.context?.pending?.challenge
    if (typeof challenge !== "string") return void refuse(res, "no challenge")
    const response = JSON.parse(String(got.incoming.body?.data))
    const authenticator = await store.getAuthenticator(support.toStoredId(response.id))
    if (!authenticator) return void refuse(res, "unknown passkey")
    let verified: { verified: boolean; authenticationInfo: { newCounter: number } }
    try {
      verified = await lib.verifyAuthenticationResponse({
        response,
        expectedChallenge: challenge,
        expectedOrigin: got.url.origin,
        expectedRPID: got.url.hostname,
        requireUserVerification: false,
        credential: {
          id: support.toJsonId(authenticator.credentialID),
          publicKey: new Uint8Array(Buffer.from(authenticator.credentialPublicKey, "base64")),
          counter: authenticator.counter,
        },
      })
    } catch {
      return void refuse(res, "assertion")
    }
    if (!verified.verified) return void refuse(res, "assertion")
    await store.updateAuthenticatorCounter(authenticator.credentialID, verified.authenticationInfo.newCounter)
    const account = await store.getAccount(authenticator.providerAccountId, "passkey")
    const user = account && (await store.getUser(account.userId))
    if (!user) return void refuse(res, "no user")
    await parts.signIn(res, got.incoming, user, flowCookie, String(payload.callbackUrl), now)
  })
}

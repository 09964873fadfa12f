/**
 * Constants shared by the bench app (child) and the runner. Nothing of authchart's own is imported here:
 * the @auth/express app loads this file too (the TOTP secrets are in bench/totp-secret.ts).
 */

export const BENCH_SECRET = "bench-secret-0123456789abcdef0123456789abcdef"
export const BENCH_USER = { id: "1", name: "Bench", email: "bench@example.test" }

const UNLIMITED = { max: 1e9 }
/** The in-process credentials benches' rate limits: every password rule on, its maximum never reached (RL=0: off). */
export const benchPasswordLimits = () =>
  process.env.RL === "0"
    ? (false as const)
    : { rules: { client: UNLIMITED, passwordAccount: UNLIMITED, passwordClient: UNLIMITED, passwordAccounts: UNLIMITED } }
/** The in-process credentials benches' provider options: user `bench`, password `bench`. */
export const benchCredentialsOptions = {
  credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
  authorize: async (c: Record<string, unknown>) => (c.username === "bench" && c.password === "bench" ? { ...BENCH_USER } : null),
}
export const SESSION_COOKIE = "authjs.session-token"
export const CSRF_COOKIE = "authjs.csrf-token"
/** The OpenID provider both apps sign in with in the OIDC bench (bench/run.ts starts it; bench/app.ts reads these). */
export const IDP_PROVIDER_ID = "bench-idp"
/**
 * The bench provider's idle-connection timeout, ms: Node's default. With the test provider's 1 s no
 * client reuses a connection (Node's agent and undici give up one second before the announced timeout),
 * so every token and discovery request of either app would open a TCP connection of its own.
 * BENCH_IDP_KEEP_ALIVE_MS=1000 measures that case.
 */
export const IDP_KEEP_ALIVE_MS = Number(process.env.BENCH_IDP_KEEP_ALIVE_MS ?? 5_000)
export const IDP_ENV = { issuer: "BENCH_IDP_ISSUER", clientId: "BENCH_IDP_CLIENT_ID", clientSecret: "BENCH_IDP_CLIENT_SECRET" } as const
/** Steps bench (BENCH_STEPS=1, authchart only): the TOTP provider, its flow, and the users' secrets. */
export const TOTP_PROVIDER_ID = "totp"
export const TOTP_FLOW_ID = "credentials-totp"
export const EMAIL_PROVIDER_ID = "email"
/** Steps bench: the passkey provider (the load generator answers with bench/webauthn-authenticator.ts). */
export const PASSKEY_PROVIDER_ID = "passkey"

/** The floor rows (bench/essential.ts): the same requests as a step, to routes doing only what it cannot skip. */
export const ESSENTIAL_TOTP = "POST /__essential/totp-code (what the TOTP code step cannot skip)"
export const ESSENTIAL_PASSKEY = "POST /__essential/passkey-authenticate (what the passkey sign-in POST cannot skip)"
export const ESSENTIAL_STEPS: readonly string[] = [ESSENTIAL_TOTP, ESSENTIAL_PASSKEY]

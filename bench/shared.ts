/** Constants shared by the bench app (child) and the runner. */
export const BENCH_SECRET = "bench-secret-0123456789abcdef0123456789abcdef"
export const BENCH_USER = { id: "1", name: "Bench", email: "bench@example.test" }
export const SESSION_COOKIE = "authjs.session-token"
export const CSRF_COOKIE = "authjs.csrf-token"
/** The OpenID provider both apps sign in with in the OIDC bench (bench/run.ts starts it; bench/app.ts reads these). */
export const IDP_PROVIDER_ID = "bench-idp"
export const IDP_ENV = { issuer: "BENCH_IDP_ISSUER", clientId: "BENCH_IDP_CLIENT_ID", clientSecret: "BENCH_IDP_CLIENT_SECRET" } as const

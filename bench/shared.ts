/** Constants shared by the bench app (child) and the runner. */
export const BENCH_SECRET = "bench-secret-0123456789abcdef0123456789abcdef"
export const BENCH_USER = { id: "1", name: "Bench", email: "bench@example.test" }
export const SESSION_COOKIE = "authjs.session-token"
export const CSRF_COOKIE = "authjs.csrf-token"

import autocannon from "autocannon"
const base = process.argv[2]!
const csrf = await fetch(`${base}/auth/csrf`)
const { csrfToken } = await csrf.json() as any
const cookie = csrf.headers.getSetCookie().map(c => c.split(";")[0]).find(c => c.startsWith("authjs.csrf-token="))!
const body = new URLSearchParams({ csrfToken, username: "bench", password: "bench", callbackUrl: `${base}/dashboard` }).toString()
// sequential latency
for (let i = 0; i < 5; i++) {
  const t = performance.now()
  const r = await fetch(`${base}/auth/callback/credentials`, { method: "POST", redirect: "manual", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body })
  await r.text()
  console.log("seq", r.status, (performance.now() - t).toFixed(1), "ms")
}
for (const c of [1, 10, 50]) {
  const res = await autocannon({ url: base, connections: c, duration: Number(process.argv[3] ?? 4), requests: [{ method: "POST", path: "/auth/callback/credentials", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body }] })
  console.log(`c=${c}`, res.requests.average, "req/s p50", res.latency.p50, "p99", res.latency.p99, "max", res.latency.max, JSON.stringify(res.statusCodeStats))
}

import autocannon from "autocannon"
const base = process.argv[2]!
const csrf = await fetch(`${base}/auth/csrf`)
const { csrfToken } = await csrf.json() as any
const cookie = csrf.headers.getSetCookie().map(c => c.split(";")[0]).find(c => c.startsWith("authjs.csrf-token="))!
const body = new URLSearchParams({ csrfToken, username: "bench", password: "bench", callbackUrl: `${base}/dashboard` }).toString()
for (const c of [1, 10, 50]) {
  await fetch(`${base}/__rss`)
  const res: any = await autocannon({ url: base, connections: c, duration: Number(process.argv[3] ?? 3), requests: [{ method: "POST", path: "/auth/callback/credentials", headers: { "content-type": "application/x-www-form-urlencoded", cookie }, body }] })
  const l = res.latency
  const loop = await (await fetch(`${base}/__rss`)).json()
  console.log(`c=${c}`, res.requests.average, "req/s", "p50", l.p50, "p90", l.p90, "p97.5", l.p97_5, "p99", l.p99, "max", l.max, "loop", JSON.stringify(loop))
}

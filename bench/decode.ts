/**
 * Session-token decode throughput: authchart's `decode` vs `@auth/core/jwt` on the same token.
 * Run: `npx tsx bench/decode.ts`
 */
import { decode as authDecode, encode as authEncode } from "@auth/core/jwt"
import { decode } from "../src/jwt.js"

const secret = "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz"
const salt = "authjs.session-token"
const DURATION_MS = 2000
const MAX_OPS = 5_000_000
const BATCH = 200

async function measure(name: string, run: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 500; i++) await run() // warm-up: JIT and key caches
  let ops = 0
  const start = performance.now()
  let elapsed = 0
  while (elapsed < DURATION_MS && ops < MAX_OPS) {
    for (let i = 0; i < BATCH; i++) await run()
    ops += BATCH
    elapsed = performance.now() - start
  }
  const perSecond = (ops / elapsed) * 1000
  console.log(
    `${name.padEnd(20)} ${Math.round(perSecond).toLocaleString("en-US").padStart(10)} ops/s  (${ops} ops in ${Math.round(elapsed)} ms)`,
  )
  return perSecond
}

const token = await authEncode({
  token: { sub: "user-1", name: "Ada Lovelace", email: "ada@example.com", picture: "https://example.com/a.png" },
  secret,
  salt,
})
const ours = await decode({ token, secret, salt })
const theirs = await authDecode({ token, secret, salt })
if (JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Error("decoders disagree")

console.log(`token: ${token.length} chars, Node ${process.version}`)
const a = await measure("authchart decode", () => decode({ token, secret, salt }))
const b = await measure("@auth/core decode", () => authDecode({ token, secret, salt }))
console.log(`speed-up: ${(a / b).toFixed(1)}x`)

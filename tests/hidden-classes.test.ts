/**
 * Objects made per request share one hidden class (V8 map). A spread followed by a new key
 * (`{ ...o, key }`) gives each result a map of its own once its maker is optimised, and every later read
 * of it misses its inline cache: the answers, cookie options and `extended()` are built so they do not.
 * Checked in a child Node with `--allow-natives-syntax` (`%HaveSameMap` after `%OptimizeFunctionOnNextCall`);
 * the spread itself is the control, so the check is known to tell the two apart.
 */
import { spawnSync } from "node:child_process"
import { expect, it } from "vitest"

const script = `
import { jsonWithCookies } from "./src/runtime/http/respond.ts"
import { clearCookie } from "./src/runtime/http/cookies.ts"
import { extended } from "./src/runtime/config/plain-object.ts"
function same(make, ...inner) {
  // semicolons: a line starting with % would otherwise continue the one before as a modulo
  // (the maker and the library function it calls are both optimised: that is where maps split)
  for (let i = 0; i < 5; i++) make(i);
  for (const f of [make, ...inner]) %PrepareFunctionForOptimization(f);
  make(1);
  make(2);
  for (const f of [make, ...inner]) %OptimizeFunctionOnNextCall(f);
  return %HaveSameMap(make(3), make(4))
}
const options = { httpOnly: true, sameSite: "lax", path: "/", secure: false }
console.log(JSON.stringify({
  spreadThenKey: same((i) => ({ ...options, maxAge: i })),
  extended: same((i) => extended(options, { maxAge: i }), extended),
  clearCookie: same((i) => clearCookie("c" + i, options).options, clearCookie),
  jsonWithCookies: same((i) => jsonWithCookies({ i }, [], 200, { "Cache-Control": "no-store" }), jsonWithCookies),
}))
`

it("answers and cookie options made per request share one hidden class; a spread followed by a key does not", () => {
  const run = spawnSync(process.execPath, ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", script], {
    cwd: `${import.meta.dirname}/..`,
    encoding: "utf8",
    timeout: 20_000,
  })
  expect(run.stderr).toBe("")
  expect(JSON.parse(run.stdout)).toEqual({ spreadThenKey: false, extended: true, clearCookie: true, jsonWithCookies: true })
})

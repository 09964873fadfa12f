#!/usr/bin/env node
// Runs before `npm test` (the `pretest` script): makes sure the real servers and the browser the test
// suite starts are on this machine. Needed: redis-server (with redis-cli), PostgreSQL's server binaries
// (initdb, postgres) and Chromium. Missing ones are installed with apt-get when running as root on
// Debian/Ubuntu; otherwise this stops at once with the one command to run. Set
// AUTHCHART_SKIP_PROVISION=1 to skip the check (the suite then fails on what is missing).
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"

if (process.env.AUTHCHART_SKIP_PROVISION === "1") process.exit(0)

const onPath = (cmd) => spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0
const postgresInstalled = () => {
  const root = "/usr/lib/postgresql"
  if (!existsSync(root)) return false
  return readdirSync(root).some((v) => existsSync(`${root}/${v}/bin/initdb`) && existsSync(`${root}/${v}/bin/postgres`))
}
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

const missing = []
if (!onPath("redis-server") || !onPath("redis-cli")) missing.push("redis-server")
if (!postgresInstalled()) missing.push("postgresql")
if (!existsSync(chromiumPath)) missing.push("chromium")
if (missing.length === 0) process.exit(0)

const command = `apt-get install -y ${missing.join(" ")}`
const isRoot = typeof process.getuid === "function" && process.getuid() === 0
if (!isRoot || !onPath("apt-get")) {
  console.error(
    `\nThe test suite starts real servers and a browser, and these are missing: ${missing.join(", ")}.\n` +
      `Install them, then run npm test again:\n\n    sudo apt-get update && sudo ${command}\n\n` +
      "(On another system, install the same packages with its package manager; set CHROMIUM_PATH if Chromium " +
      "lives elsewhere than /usr/bin/chromium.)\n",
  )
  process.exit(1)
}

console.log(`[provision] installing ${missing.join(", ")} with apt-get (the tests start them on loopback ports)`)
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" }
try {
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env })
  execFileSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: ["ignore", "ignore", "inherit"], env })
} catch (err) {
  console.error(`\n[provision] apt-get failed (${err.message}). Run it yourself:\n\n    ${command}\n`)
  process.exit(1)
}
console.log("[provision] done")

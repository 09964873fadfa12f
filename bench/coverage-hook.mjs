/** Preloaded by bench/signin-coverage.ts into the bench app: precise coverage (call counts) on, a snapshot to `${COV_OUT}.<n>.json` on SIGUSR2. */
import { Session } from "node:inspector"
import { writeFileSync } from "node:fs"
const s = new Session()
s.connect()
s.post("Profiler.enable")
s.post("Profiler.startPreciseCoverage", { callCount: true, detailed: false })
let n = 0
process.on("SIGUSR2", () => {
  s.post("Profiler.takePreciseCoverage", (err, res) => {
    writeFileSync(`${process.env.COV_OUT}.${n++}.json`, JSON.stringify(res.result))
  })
})

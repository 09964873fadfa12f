/**
 * The timing rounds of the tight-loop bench (bench/machine.ts): CPU µs per
 * operation from `process.cpuUsage`, round after round, read as best and median.
 */

/** CPU µs per call of `one` in each of `rounds` rounds of `n` calls, sorted from the best. */
export async function cpuRounds(one: () => Promise<unknown>, n: number, rounds: number): Promise<number[]> {
  const res: number[] = []
  for (let round = 0; round < rounds; round++) {
    const c0 = process.cpuUsage()
    for (let i = 0; i < n; i++) await one()
    const c = process.cpuUsage(c0)
    res.push((c.user + c.system) / n)
  }
  return res.sort((a, b) => a - b)
}

/** "best 61.7 median 63.0 (61.7 63.0 64.2)" for sorted rounds. */
export function roundsSummary(sorted: readonly number[]): string {
  const median = sorted[Math.floor(sorted.length / 2)]
  return `best ${sorted[0]?.toFixed(1)} median ${median?.toFixed(1)} (${sorted.map((x) => x.toFixed(1)).join(" ")})`
}

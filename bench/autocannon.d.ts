/** The part of autocannon@9 (untyped) that bench/run.ts uses. */
declare module "autocannon" {
  interface Histogram {
    average: number
    mean: number
    stddev: number
    min: number
    max: number
    p50: number
    p90: number
    p99: number
    [key: string]: number
  }
  interface Request {
    method?: string
    path?: string
    headers?: Record<string, string>
    body?: string | Buffer
    onResponse?: (status: number, body: string, context: unknown, headers: Record<string, string | string[]>) => void
  }
  interface Options {
    url: string
    connections?: number
    duration?: number
    /** Requests to send in all; overrides `duration`. */
    amount?: number
    timeout?: number
    pipelining?: number
    requests?: Request[]
  }
  interface Result {
    requests: Histogram
    latency: Histogram
    throughput: Histogram
    errors: number
    timeouts: number
    mismatches: number
    non2xx: number
    resets: number
    duration: number
    statusCodeStats: Record<string, { count: number }>
  }
  function autocannon(options: Options): Promise<Result>
  export default autocannon
}

/**
 * The live feed as Server-Sent Events (text/event-stream): first a `snapshot` of every known flow, then
 * one `update` per inspection event, and a comment every 15 s to keep proxies from closing it.
 */
import type { FlowLog } from "./flow-log.js"

const KEEP_ALIVE_MS = 15_000
/** Queued messages a slow reader may fall behind by before its stream is closed (it reconnects). */
const MAX_BACKLOG = 1_000

const encoder = new TextEncoder()

/** One SSE message; `data` is JSON on a single line. */
export function sseMessage(event: string, data: unknown, id?: number): Uint8Array {
  const idLine = id === undefined ? "" : `id: ${id}\n`
  return encoder.encode(`${idLine}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
}

/** A feed of the log; `onEnd` runs once, when the reader cancels or the feed is closed for falling behind. */
export function eventStream(log: FlowLog, onEnd: () => void = () => {}): ReadableStream<Uint8Array> {
  let stop = (): void => {}
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const close = () => {
          stop()
          try {
            controller.close()
          } catch {
            // already closed or cancelled
          }
        }
        controller.enqueue(encoder.encode("retry: 2000\n\n"))
        controller.enqueue(sseMessage("snapshot", { flows: log.list(), maxFlows: log.maxFlows, maxEvents: log.maxEvents }, log.seq))
        const unsubscribe = log.subscribe((update) => {
          if ((controller.desiredSize ?? 0) < -MAX_BACKLOG) return close()
          controller.enqueue(sseMessage("update", update, update.seq))
        })
        const timer = setInterval(() => controller.enqueue(encoder.encode(": keep-alive\n\n")), KEEP_ALIVE_MS)
        timer.unref?.()
        let stopped = false
        stop = () => {
          if (stopped) return
          stopped = true
          unsubscribe()
          clearInterval(timer)
          onEnd()
        }
      },
      cancel() {
        stop()
      },
    },
    new CountQueuingStrategy({ highWaterMark: 16 }),
  )
}

/**
 * A terminal timeline: one compact line per inspection event.
 *
 * ```
 * 14:03:22.120 credentials  credentials 3f9c1a2e  request     POST callback → SUBMIT
 * 14:03:22.121 credentials  credentials 3f9c1a2e  transition  authorizing ← SUBMIT
 * 14:03:22.164 credentials  credentials 3f9c1a2e  end         done ✓
 * ```
 */
import type { InspectionEvent, Inspector } from "../runtime/engine/inspection.js"

/** Options of `consoleInspector`. */
export interface ConsoleInspectorOptions {
  /** Where lines go. Default: `process.stdout`. */
  write?: (line: string) => void
  /** ANSI colours. Default: when stdout is a terminal and `NO_COLOR` is unset. */
  colors?: boolean
}

const CODES = { dim: 2, bold: 1, red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36 } as const
type Colour = keyof typeof CODES

function pad(n: number, width = 2): string {
  return String(n).padStart(width, "0")
}

function clock(at: number): string {
  const d = new Date(at)
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

function detail(event: InspectionEvent, paint: (c: Colour, s: string) => string): string {
  switch (event.type) {
    case "request":
      return `${event.method} ${event.action} → ${event.event}`
    case "transition":
      return `${paint("bold", event.state)} ← ${event.event}`
    case "effect":
      return `${event.effect} ${event.phase === "error" ? paint("red", "error") : event.phase}`
    case "persist":
      return `rests in ${paint("bold", event.state)} until ${clock(event.expiresAt)}`
    case "end":
      return event.ok ? `${event.state} ${paint("green", "✓")}` : `${event.state} ${paint("red", `✗ ${event.errorType ?? "failed"}`)}`
  }
}

const TYPE_COLOUR: Readonly<Record<InspectionEvent["type"], Colour>> = {
  request: "blue",
  transition: "cyan",
  effect: "magenta",
  persist: "yellow",
  end: "green",
}

/** The line for one event (exported for tests and custom sinks). */
export function formatEvent(event: InspectionEvent, colors = false): string {
  const paint = (colour: Colour, text: string) => (colors ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text)
  const typeColour = event.type === "end" && !event.ok ? "red" : TYPE_COLOUR[event.type]
  return [
    paint("dim", clock(event.at)),
    event.flow.padEnd(12),
    event.provider.padEnd(12),
    paint("dim", event.flowId.slice(0, 8)),
    paint(typeColour, event.type.padEnd(10)),
    detail(event, paint),
  ].join(" ")
}

/**
 * An inspector that prints the redacted stream as a timeline. Give it to `config.inspect`, alone or
 * next to the page inspector (`createInspector({ console: true })`).
 *
 * @example
 * ```ts
 * import { consoleInspector } from "authchart/inspect"
 * app.use("/auth", ExpressAuth({ ...authConfig, inspect: consoleInspector() }))
 * ```
 */
export function consoleInspector(options: ConsoleInspectorOptions = {}): Inspector {
  const write = options.write ?? ((line: string) => void process.stdout.write(`${line}\n`))
  const colors = options.colors ?? (process.stdout.isTTY === true && !process.env.NO_COLOR)
  return (event) => write(formatEvent(event, colors))
}

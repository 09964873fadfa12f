/**
 * Mermaid's self-contained browser build (`mermaid/dist/mermaid.min.js`), resolved lazily from the
 * app's node_modules: `mermaid` is an optional peer. Read once, then kept.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"

const BUNDLE = "mermaid/dist/mermaid.min.js"

let cached: Promise<string | undefined> | undefined

/** The bundle's path, or undefined when `mermaid` is not installed. */
export function mermaidBundlePath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(BUNDLE)
  } catch {
    return undefined
  }
}

/** The bundle's text, or undefined when `mermaid` is not installed. */
export function mermaidBundle(): Promise<string | undefined> {
  cached ??= (async () => {
    const path = mermaidBundlePath()
    return path === undefined ? undefined : readFile(path, "utf8")
  })().catch(() => undefined)
  return cached
}

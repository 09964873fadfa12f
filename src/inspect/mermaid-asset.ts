/**
 * Mermaid's self-contained browser build (`mermaid/dist/mermaid.min.js`), resolved lazily from the
 * app's node_modules: `mermaid` is an optional peer. Read once, then kept.
 */
import { readFile } from "node:fs/promises"
import { createRequire } from "node:module"

/** The bundle as a module specifier. */
export const MERMAID_BUNDLE = "mermaid/dist/mermaid.min.js"

let cached: Promise<string | undefined> | undefined

/** The bundle's path, or undefined when `mermaid` is not installed. */
export function mermaidBundlePath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(MERMAID_BUNDLE)
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

/**
 * SVG export: Mermaid draws each diagram in a headless Chromium (playwright-core), with every network
 * request refused. Optional: needs `mermaid`, `playwright-core` and a Chromium binary; `svgNeeds` lists
 * everything missing at once, with what to run.
 */
import { existsSync } from "node:fs"
import { createRequire } from "node:module"
import { MERMAID_BUNDLE, mermaidBundlePath } from "./mermaid-asset.js"

export interface SvgOptions {
  /** The Chromium executable. Default `CHROMIUM_PATH`, else a system Chromium, else Playwright's. */
  chromium?: string
}

/** What SVG export lacks; empty `packages` and a `chromium` path mean it can run. */
export interface SvgNeeds {
  /** Packages that are not installed, in install order. */
  readonly packages: readonly string[]
  /** The Chromium to use, when one was found. */
  readonly chromium?: string
  /** Where Chromium was looked for, when none was found. */
  readonly lookedFor?: readonly string[]
}

const PACKAGES = { mermaid: MERMAID_BUNDLE, "playwright-core": "playwright-core" } as const
const SYSTEM_CHROMIUM = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]

type Playwright = typeof import("playwright-core")

async function playwright(): Promise<Playwright | undefined> {
  try {
    return await import("playwright-core")
  } catch {
    return undefined
  }
}

/**
 * Checks everything SVG export needs before anything runs. `resolve` finds a module (default: from
 * authchart's own location, as the export does).
 */
export async function svgNeeds(options: SvgOptions & { resolve?: (specifier: string) => string } = {}): Promise<SvgNeeds> {
  const resolve = options.resolve ?? createRequire(import.meta.url).resolve
  const packages = Object.entries(PACKAGES)
    .filter(([, entry]) => {
      try {
        resolve(entry)
        return false
      } catch {
        return true
      }
    })
    .map(([name]) => name)
  const explicit = options.chromium ?? process.env.CHROMIUM_PATH
  const candidates = explicit ? [explicit] : [...SYSTEM_CHROMIUM]
  if (!explicit && !packages.includes("playwright-core")) {
    const bundled = (await playwright())?.chromium.executablePath()
    if (bundled) candidates.push(bundled)
  }
  const chromium = candidates.find((path) => existsSync(path))
  return chromium ? { packages, chromium } : { packages, lookedFor: candidates }
}

/** What to tell the user when something is missing, or undefined when SVG export can run. */
export function svgNeedsMessage(needs: SvgNeeds): string | undefined {
  const lines: string[] = []
  if (needs.packages.length > 0) {
    lines.push(`  - the packages ${needs.packages.join(", ")}: npm install -D ${needs.packages.join(" ")}`)
  }
  if (!needs.chromium) {
    lines.push(
      `  - a Chromium (none at ${(needs.lookedFor ?? []).join(", ")}): install one (apt-get install chromium, or npx playwright install chromium), or set CHROMIUM_PATH to its executable`,
    )
  }
  return lines.length === 0 ? undefined : ["SVG export (--svg) needs what is missing here:", ...lines].join("\n")
}

/** Each diagram drawn as SVG, by id. Throws an error naming everything that is missing. */
export async function renderSvgs(
  diagrams: readonly { id: string; mermaid: string }[],
  options: SvgOptions = {},
): Promise<Map<string, string>> {
  const needs = await svgNeeds(options)
  const problem = svgNeedsMessage(needs)
  const pw = await playwright()
  const bundle = mermaidBundlePath()
  if (problem || !pw || !bundle || !needs.chromium) throw new Error(problem ?? "SVG export needs mermaid and playwright-core")
  const browser = await pw.chromium.launch({
    executablePath: needs.chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  })
  try {
    const page = await browser.newPage()
    await page.route("**/*", (route) => route.abort())
    await page.setContent("<!doctype html><html><body></body></html>")
    await page.addScriptTag({ path: bundle })
    await page.evaluate(`mermaid.initialize({ startOnLoad: false, securityLevel: "strict", deterministicIds: true })`)
    const svgs = new Map<string, string>()
    for (const [i, diagram] of diagrams.entries()) {
      const svg = await page.evaluate(
        `mermaid.render(${JSON.stringify(`flow-${i}`)}, ${JSON.stringify(diagram.mermaid)}).then((r) => r.svg)`,
      )
      svgs.set(diagram.id, String(svg))
    }
    return svgs
  } finally {
    await browser.close()
  }
}

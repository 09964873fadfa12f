/**
 * SVG export: Mermaid draws each diagram in a headless Chromium (playwright-core), with every network
 * request refused. Optional: needs `mermaid`, `playwright-core` and a Chromium binary.
 */
import { mermaidBundlePath } from "./mermaid-asset.js"

export interface SvgOptions {
  /** The Chromium executable. Default `CHROMIUM_PATH`, else `/usr/bin/chromium`. */
  chromium?: string
}

/** Each diagram drawn as SVG, by id. Throws an error naming what is missing. */
export async function renderSvgs(
  diagrams: readonly { id: string; mermaid: string }[],
  options: SvgOptions = {},
): Promise<Map<string, string>> {
  const bundle = mermaidBundlePath()
  if (!bundle) throw new Error("SVG export needs the mermaid package: npm install -D mermaid")
  let playwright: typeof import("playwright-core")
  try {
    playwright = await import("playwright-core")
  } catch {
    throw new Error("SVG export needs playwright-core (npm install -D playwright-core) and a Chromium")
  }
  const browser = await playwright.chromium.launch({
    executablePath: options.chromium ?? process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
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
      const svg = await page.evaluate(`mermaid.render(${JSON.stringify(`flow-${i}`)}, ${JSON.stringify(diagram.mermaid)}).then((r) => r.svg)`)
      svgs.set(diagram.id, String(svg))
    }
    return svgs
  } finally {
    await browser.close()
  }
}

/** The browser harness itself: Chromium starts offline and renders a loopback page. */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { expect, it } from "vitest"
import { launchBrowser } from "./support/browser.js"

it("Chromium renders a page served on loopback", async () => {
  const server = createServer((_, res) => res.end("<button onclick=\"this.textContent='clicked'\">go</button>"))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const browser = await launchBrowser()
  try {
    const page = await browser.context.newPage()
    await page.goto(`http://localhost:${port}/`)
    await page.click("button")
    expect(await page.textContent("button")).toBe("clicked")
  } finally {
    await browser.close()
    server.close()
  }
}, 60_000)

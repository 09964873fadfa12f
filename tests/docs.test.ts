/**
 * The documentation a user reads: README.md and the guides in docs/. Every relative link and `#anchor`
 * in them leads to a file and a heading that exist, the providers guide lists every preset the package
 * exports, and the README stays a front door (the set-up commands first, at most 300 lines; the rest
 * belongs in a guide). (Their TypeScript blocks type-check against the packed package in
 * tests/package.test.ts.)
 */
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { documentationFiles } from "./support/readme-snippets.js"
import { repoRoot } from "./support/packed.js"

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, "")
    .replaceAll(" ", "-")
}

/** The Markdown text outside fenced code blocks. */
function prose(markdown: string): string[] {
  let fenced = false
  return markdown.split("\n").filter((line) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced
    return !fenced
  })
}

function anchorsOf(path: string): Set<string> {
  const headings = prose(readFileSync(path, "utf8")).flatMap((line) => /^#{1,6} (.*)$/.exec(line)?.[1] ?? [])
  return new Set(headings.map(slug))
}

describe("README.md and docs/*.md", () => {
  it("the README starts with the two set-up commands and stays within 300 lines", () => {
    const readme = readFileSync(join(repoRoot, "README.md"), "utf8")
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ""
    expect(firstBlock.split("\n").map((line) => line.split("#")[0]?.trim())).toEqual([
      "npm install && npm run demo",
      "npm install && npm test",
      "",
    ])
    expect(readme.split("\n").length).toBeLessThanOrEqual(300)
  })

  it("every relative link leads to a file that exists, and every #anchor to a heading in it", () => {
    const broken: string[] = []
    for (const file of documentationFiles()) {
      const lines = prose(readFileSync(file, "utf8"))
      for (const line of lines) {
        for (const [, target = ""] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
          if (/^[a-z]+:/i.test(target)) continue
          const [path = "", anchor] = target.split("#")
          const to = path === "" ? file : resolve(dirname(file), path)
          const name = `${relative(repoRoot, file)}: ${target}`
          if (!existsSync(to)) broken.push(`${name} (no such file)`)
          else if (anchor !== undefined && to.endsWith(".md") && !anchorsOf(to).has(anchor)) broken.push(`${name} (no such heading)`)
        }
      }
    }
    expect(broken).toEqual([])
  })

  it("the providers guide lists every preset the package exports", () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { exports: Record<string, unknown> }
    const generic = new Set(["oauth", "oidc", "credentials", "email", "email-code", "email-message", "nodemailer", "passkey", "webauthn"])
    const presets = Object.keys(manifest.exports)
      .flatMap((key) => /^\.\/providers\/(.+)$/.exec(key)?.[1] ?? [])
      .filter((id) => !generic.has(id))
    expect(presets.length).toBeGreaterThan(0)
    const guide = readFileSync(join(repoRoot, "docs", "providers.md"), "utf8")
    const list = guide.split("\n## Every preset\n")[1] ?? ""
    expect(presets.filter((id) => !list.includes(`| \`authchart/providers/${id}\` |`))).toEqual([])
  })
})

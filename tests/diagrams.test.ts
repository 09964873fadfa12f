/**
 * Diagrams from machine definitions: deterministic Mermaid text with every state, initial and final
 * state, invoke outcomes and the resting (`awaiting-input`) states marked; and the committed copies
 * (docs/flows/*.mmd, the diagrams section of the flows guide docs/flows.md) are not stale.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type { AnyStateNode } from "xstate"
import { setup } from "xstate"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { flowDiagrams, machineDiagram, toMermaid } from "../src/inspect/index.js"
import { currentReadmeSection, diagramFiles, readmeSection } from "../src/inspect/export.js"
import { builtInFlows } from "../src/runtime/engine/built-in-flows.js"
import { type Browser, launchBrowser } from "./support/browser.js"
import { drawnPlacement, expectedPlacement } from "./support/diagram-placement.js"
import { flows as extendedFlows } from "./fixtures/extended-flow.js"

const root = resolve(import.meta.dirname, "..")
const work = mkdtempSync(join(tmpdir(), "authchart-diagrams-"))
afterAll(() => rmSync(work, { recursive: true, force: true }))

function allNodes(node: AnyStateNode): AnyStateNode[] {
  return (Object.values(node.states) as AnyStateNode[]).flatMap((child) => [child, ...allNodes(child)])
}

const STALE = "stale: run `npm run diagrams` and commit docs/flows and docs/flows.md"

describe("toMermaid", () => {
  it.each(builtInFlows.map((f) => [f.id, f] as const))("%s: deterministic, every state present", (_, flow) => {
    const text = toMermaid(flow.machine)
    expect(toMermaid(flow.machine)).toBe(text)
    expect(text.startsWith("stateDiagram-v2\n")).toBe(true)
    const { ids } = machineDiagram(flow.machine)
    for (const node of allNodes(flow.machine.root)) {
      const id = ids[node.path.join(".")]
      expect(id, node.id).toBeDefined()
      expect(text).toMatch(new RegExp(`^\\s*(\\[\\*\\] --> ${id}|${id} --> |.* --> ${id}:)`, "m"))
      if (node.type === "final") expect(text).toContain(`  ${id} --> [*]\n`)
    }
    expect(text).toContain(`  [*] --> ${ids[flow.machine.root.initial.target[0]?.path.join(".") ?? ""]}\n`)
  })

  it.each(builtInFlows.map((f) => [f.id, f] as const))("%s: marks exactly the awaiting-input states", (_, flow) => {
    const text = toMermaid(flow.machine)
    const { ids } = machineDiagram(flow.machine)
    const tagged = allNodes(flow.machine.root)
      .filter((n) => n.tags.includes("awaiting-input"))
      .map((n) => ids[n.path.join(".")])
    expect(tagged.length).toBeGreaterThan(0)
    const marked = [...text.matchAll(/^ {2}class (\S+) awaitingInput$/gm)].map((m) => m[1])
    expect(marked).toEqual(tagged)
    expect(text).toContain("classDef awaitingInput ")
  })

  it("draws the credentials flow: events, invoke outcomes, the guarded gate, final states", () => {
    expect(toMermaid(builtInFlows.find((f) => f.id === "credentials")?.machine as never)).toBe(
      [
        "stateDiagram-v2",
        "  %% credentials: generated from the machine definition by authchart; do not edit",
        "  [*] --> idle",
        "  idle --> authorizing: SUBMIT",
        "  authorizing --> gate: done: authorize",
        "  authorizing --> failed: error: authorize",
        "  gate --> linking: done: signInGate [signInAllowed]",
        "  gate --> denied: done: signInGate [else]",
        "  gate --> failed: error: signInGate",
        "  linking --> issuing: done: linkIdentity",
        "  linking --> failed: error: linkIdentity",
        "  issuing --> done: done: issueSession",
        "  issuing --> failed: error: issueSession",
        "  done --> [*]",
        "  denied --> [*]",
        "  failed --> [*]",
        "  classDef awaitingInput fill:#fff4d6,stroke:#b7791f,stroke-width:2px",
        "  class idle awaitingInput",
        "",
      ].join("\n"),
    )
  })

  it("handles nested, parallel, always, after, named guards and keyword state names", () => {
    const machine = setup({ guards: { isReady: () => true } }).createMachine({
      id: "shapes",
      initial: "start",
      states: {
        start: { tags: ["awaiting-input"], on: { GO: "work" }, always: [{ guard: "isReady", target: "end" }] },
        work: {
          type: "parallel",
          onDone: "end",
          states: {
            left: { initial: "a", states: { a: { after: { 500: "b" } }, b: { type: "final" } } },
            right: { initial: "a", states: { a: { tags: ["awaiting-input"], on: { NEXT: "b" } }, b: { type: "final" } } },
          },
        },
        end: { type: "final" },
      },
    })
    const { mermaid, ids } = machineDiagram(machine)
    expect(ids).toMatchObject({ end: "s_end", "work.left.a": "work_left_a", "work.right.a": "work_right_a" })
    expect(mermaid).toContain('  state "end" as s_end\n')
    expect(mermaid).toContain("  start --> s_end: always [isReady]\n")
    expect(mermaid).toContain("      work_left_a --> work_left_b: after 500ms\n")
    expect(mermaid).toContain("  work --> s_end: done\n")
    expect(mermaid).toMatch(/state work \{\n[\s\S]*\n {4}--\n[\s\S]*\n {2}\}/)
    expect([...mermaid.matchAll(/class (\S+) awaitingInput/g)].map((m) => m[1])).toEqual(["start", "work_right_a"])
  })

  it("writes an edge leaving a composite state outside its block, so the target stays where it belongs", () => {
    const extended = extendedFlows[0] as (typeof extendedFlows)[number]
    const text = toMermaid(extended.machine)
    const block = (id: string) => /state \S+ \{\n([\s\S]*?)\n {2}\}/.exec(text.slice(text.indexOf(`state ${id} {`)))?.[1] ?? ""
    expect(block("totp")).toContain("totp_waiting --> totp_checking: STEP")
    expect(block("totp")).not.toMatch(/--> (terms|failed|issuing)\b/)
    expect(block("terms")).not.toMatch(/--> (issuing|failed)\b/)
    expect(text).toContain("\n  totp_checking --> terms: done: totp.submit [stepPassed]\n")
    expect(text).toContain("\n  terms_checking --> failed: error: terms.submit\n")
  })

  it("flowDiagrams lists every flow in order", () => {
    expect(flowDiagrams(builtInFlows).map((d) => d.id)).toEqual(builtInFlows.map((f) => f.id))
  })
})

describe("an extended flow drawn by Mermaid in Chromium", () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchBrowser()
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("`authchart diagrams --flows … --svg` puts every state in its own parent, extra steps at the top level", async () => {
    const out = join(work, "svg")
    const run = (...args: string[]) =>
      execFileSync(
        join(root, "node_modules/.bin/tsx"),
        ["src/cli.ts", "diagrams", "--out", out, "--flows", "tests/fixtures/extended-flow.ts", ...args],
        {
          cwd: root,
          encoding: "utf8",
          stdio: "pipe",
        },
      )
    run()
    // the .mmd files are current, the SVGs new: it says it wrote them (not "up to date")
    const drew = run("--svg")
    expect(drew).toMatch(/^Wrote 4 files \(4 already up to date\):\n/)
    expect(drew).toContain(`  ${join(out, "credentials.svg")}\n`)
    const page = await browser.context.newPage()
    await page.setContent(`<!doctype html><body>${readFileSync(join(out, "credentials.svg"), "utf8")}</body>`)
    const extended = extendedFlows[0] as (typeof extendedFlows)[number]
    const expected = expectedPlacement(extended.machine)
    expect(expected).toMatchObject({ totp: null, terms: null, issuing: null, failed: null, totp_checking: "totp", terms_waiting: "terms" })
    const drawn = await drawnPlacement(page.locator("svg").first())
    expect(Object.fromEntries(Object.keys(expected).map((id) => [id, drawn[id]]))).toEqual(expected)
    await page.close()
  }, 120_000)
})

describe("committed diagrams", () => {
  it("docs/flows/*.mmd match the built-in machines", () => {
    const dir = join(root, "docs/flows")
    const expected = diagramFiles(builtInFlows)
    const present = readdirSync(dir)
      .filter((name) => name.endsWith(".mmd"))
      .sort()
    expect(present, STALE).toEqual(expected.map((f) => f.name).sort())
    for (const file of expected) expect(readFileSync(join(dir, file.name), "utf8"), `${file.name} ${STALE}`).toBe(file.content)
  })

  it("the flows guide's diagrams section (docs/flows.md) matches the built-in machines", () => {
    const guide = readFileSync(join(root, "docs", "flows.md"), "utf8")
    expect(guide).toContain("## Flow diagrams")
    expect(currentReadmeSection(guide), STALE).toBe(readmeSection(builtInFlows))
    for (const flow of builtInFlows) expect(guide).toContain(`\`\`\`mermaid\n${toMermaid(flow.machine)}\`\`\``)
  })

  it("`authchart diagrams` writes the files and `--check` tells stale from current", () => {
    const tsx = join(root, "node_modules/.bin/tsx")
    const out = join(work, "flows")
    const readme = join(work, "README.md")
    writeFileSync(readme, "# app\n")
    const run = (...args: string[]) =>
      execFileSync(tsx, ["src/cli.ts", "diagrams", "--out", out, "--readme", readme, ...args], {
        cwd: root,
        encoding: "utf8",
        stdio: "pipe",
      })
    const check = () => {
      try {
        run("--check")
        return 0
      } catch (err) {
        return (err as { status: number }).status
      }
    }
    expect(check()).toBe(1)
    run()
    expect(readdirSync(out).sort()).toEqual(
      diagramFiles(builtInFlows)
        .map((f) => f.name)
        .sort(),
    )
    expect(currentReadmeSection(readFileSync(readme, "utf8"))).toBe(readmeSection(builtInFlows))
    expect(check()).toBe(0)
    writeFileSync(join(out, "credentials.mmd"), "stateDiagram-v2\n")
    expect(check()).toBe(1)
  }, 60_000)
})

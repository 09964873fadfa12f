/**
 * Diagram export: the `.mmd` files and the README section `authchart diagrams` writes, and the check
 * that they are current.
 */
import type { FlowDefinition } from "../runtime/engine/define-flow.js"
import { flowDiagrams } from "./diagram.js"

export const README_START = "<!-- authchart:flow-diagrams:start -->"
export const README_END = "<!-- authchart:flow-diagrams:end -->"

export interface DiagramFile {
  readonly name: string
  readonly content: string
}

/** One `<flow id>.mmd` per flow. */
export function diagramFiles(flows: Iterable<Pick<FlowDefinition, "id" | "machine">>): DiagramFile[] {
  return flowDiagrams(flows).map(({ id, mermaid }) => ({ name: `${id.replace(/[^A-Za-z0-9_.-]/g, "_")}.mmd`, content: mermaid }))
}

/** The README section between its markers: every diagram in a ```mermaid block. */
export function readmeSection(flows: Iterable<Pick<FlowDefinition, "id" | "machine">>): string {
  const blocks = flowDiagrams(flows).map(({ id, mermaid }) => `### ${id}\n\n\`\`\`mermaid\n${mermaid}\`\`\``)
  return [
    README_START,
    "Generated from the machine definitions by `npm run diagrams` (`npx authchart diagrams`); a test fails",
    "when they are stale. Highlighted states (`awaitingInput`) are where a flow rests until the next request;",
    "`done: <effect>` / `error: <effect>` are the outcomes of the effect the state runs.",
    "",
    ...blocks.flatMap((block) => [block, ""]),
    README_END,
  ].join("\n")
}

/** The README with its diagrams section replaced, or appended under a "Flow diagrams" heading. */
export function withReadmeSection(readme: string, section: string): string {
  const start = readme.indexOf(README_START)
  const end = readme.indexOf(README_END)
  if (start !== -1 && end > start) return `${readme.slice(0, start)}${section}${readme.slice(end + README_END.length)}`
  return `${readme.trimEnd()}\n\n## Flow diagrams\n\n${section}\n`
}

/** The section currently in a README, if it has one. */
export function currentReadmeSection(readme: string): string | undefined {
  const start = readme.indexOf(README_START)
  const end = readme.indexOf(README_END)
  return start !== -1 && end > start ? readme.slice(start, end + README_END.length) : undefined
}

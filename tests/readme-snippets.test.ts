/**
 * How the README's TypeScript blocks are found for the type-check in tests/package.test.ts: every
 * ```ts block (also in a list item), with the hidden `<!-- ts-preamble -->` right before it.
 */
import { describe, expect, it } from "vitest"
import { readmeSnippets } from "./support/readme-snippets.js"

const markdown = [
  "# Title", // 1
  "<!-- ts-preamble (the app of the quick start)", // 2
  "declare const app: unknown", // 3
  "-->", // 4
  "", // 5
  "```ts", // 6
  "use(app)", // 7
  "```", // 8
  "```sh", // 9
  "```ts inside a shell block is not a block", // 10
  "```", // 11
  "- a list item:", // 12
  "  ```typescript", // 13
  "  const a: number = 1", // 14
  "  ```", // 15
  "<!-- an ordinary comment -->", // 16
  "```ts", // 17
  "const b = 2", // 18
  "```", // 19
].join("\n")

describe("README snippets", () => {
  it("are the ts blocks, each with its preamble and the README line of its first code line", () => {
    expect(readmeSnippets(markdown)).toEqual([
      { line: 7, preamble: "declare const app: unknown", code: "use(app)" },
      { line: 14, preamble: "", code: "const a: number = 1" },
      { line: 18, preamble: "", code: "const b = 2" },
    ])
  })

  it("an unclosed block is an error naming its line", () => {
    expect(() => readmeSnippets("text\n```ts\nconst a = 1\n")).toThrow("README line 2: unclosed code block")
  })
})

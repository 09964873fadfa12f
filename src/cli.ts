#!/usr/bin/env node
/**
 * The `authchart` command.
 *
 * ```
 * npx authchart diagrams [--out docs/flows] [--readme README.md] [--flows ./auth-flows.ts] [--svg] [--check]
 * npx authchart secret [--raw]
 * ```
 * `diagrams` writes the Mermaid diagram of every flow (see `cli/diagrams.ts`); `secret` prints a fresh
 * `AUTH_SECRET`. Every failure is one message saying what to do, and exit code 1.
 */
import { CliError } from "./cli/errors.js"
import { DIAGRAMS_USAGE, diagramsCommand } from "./cli/diagrams.js"
import { SECRET_USAGE, secretCommand } from "./cli/secret.js"

const USAGE = `${DIAGRAMS_USAGE}\n\n${SECRET_USAGE}`

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === "diagrams") return diagramsCommand(rest)
  if (command === "secret") return secretCommand(rest)
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    console.log(USAGE)
    return command === undefined ? 1 : 0
  }
  console.error(`Unknown command "${command}": use \`authchart diagrams\` or \`authchart secret\`.\n\n${USAGE}`)
  return 1
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    console.error(err instanceof CliError ? err.message : err instanceof Error ? `authchart: ${err.message}` : err)
    process.exitCode = 1
  },
)

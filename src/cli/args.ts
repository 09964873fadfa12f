/** Command-line options parsed strictly; a mistake is reported with the command's usage. */
import { type ParseArgsConfig, parseArgs } from "node:util"
import { CliError } from "./errors.js"

type Options = NonNullable<ParseArgsConfig["options"]>

/** The option values of `args`, or a `CliError` naming the mistake, followed by `usage`. */
export function parseOptions<O extends Options>(
  args: string[],
  options: O,
  usage: string,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: false }>>["values"] {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values
  } catch (err) {
    throw new CliError(`${(err as Error).message}\n\n${usage}`)
  }
}

/** An error the `authchart` command reports as its message alone (it already says what to do), exit code 1. */
export class CliError extends Error {
  override name = "CliError"
}

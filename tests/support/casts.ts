/**
 * Finds type assertions in a TypeScript source with the compiler's own parser: every `x as T` and
 * `<T>x`, but `as const` (which narrows a literal and asserts nothing). For tests that keep a folder
 * free of casts.
 */
import ts from "typescript"

/** Every `as T` and `<T>x` of a TypeScript source, but `as const`: `line: text` each. */
export function castsIn(fileName: string, source: string): string[] {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS)
  const found: string[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node)) {
      if (!(ts.isTypeReferenceNode(node.type) && node.type.typeName.getText(file) === "const")) {
        const { line } = file.getLineAndCharacterOfPosition(node.getStart(file))
        found.push(`${line + 1}: ${node.getText(file)}`)
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(file)
  return found
}

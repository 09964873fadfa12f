/**
 * The optional packages the configured providers' flows require (`requires.packages`), checked once at
 * config resolution: an email provider that sends through nodemailer without `nodemailer` installed, or
 * a passkey provider without `@simplewebauthn/server` / `@simplewebauthn/browser`, is a configuration
 * error naming the package and the command that installs it, instead of a failure at the first sign-in.
 */
import { createRequire } from "node:module"
import { MissingDependency } from "../../errors.js"
import type { ResolvedProvider } from "../../types/resolved.js"
import type { FlowDefinition } from "../../types/flow.js"
import { declarationOf } from "../config/declarations.js"
import { builtInFlows } from "../engine/built-in-flows.js"

/** True when the package can be loaded from authchart's own location (where `import()` looks). */
export type PackageResolver = (name: string) => boolean

const require = createRequire(import.meta.url)

/** The default resolver: Node's resolution from this module. */
export const resolvePackage: PackageResolver = (name) => {
  try {
    require.resolve(name)
    return true
  } catch {
    return false
  }
}

/** The optional packages one provider needs: those its flow requires (`requires.packages`). */
function packagesFor(provider: ResolvedProvider, flows: ReadonlyMap<string, FlowDefinition>): readonly string[] {
  const packages = declarationOf({ flows }, provider, "requires")?.packages ?? []
  return typeof packages === "function" ? packages(provider) : packages
}

const BUILT_IN_FLOWS: ReadonlyMap<string, FlowDefinition> = new Map(builtInFlows.map((flow) => [flow.id, flow]))

/** The first provider whose optional packages are not all installed, as a `MissingDependency`; else null. */
export function missingOptionalPeers(
  providers: Iterable<ResolvedProvider>,
  resolve: PackageResolver = resolvePackage,
  flows: ReadonlyMap<string, FlowDefinition> = BUILT_IN_FLOWS,
): MissingDependency | null {
  for (const provider of providers) {
    const missing = packagesFor(provider, flows).filter((name) => !resolve(name))
    if (missing.length > 0) {
      const names = missing.map((name) => `"${name}"`).join(" and ")
      const what = missing.length === 1 ? `the package ${names}, which is not installed` : `the packages ${names}, which are not installed`
      return new MissingDependency(`The ${provider.type} provider "${provider.id}" needs ${what}: npm install ${missing.join(" ")}`, {
        packages: missing,
      })
    }
  }
  return null
}

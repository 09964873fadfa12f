/** The `@auth/core/providers` directory next to the installed @auth/core of the package at `root`. */
export function authjsProvidersDirectory(root: string): string
/** The preset module names of `@auth/core/providers`, sorted. */
export function presetNames(directory: string): string[]
/** The names of the profile types a preset exports. */
export function exportedTypeNames(directory: string, name: string): { name: string; generic: boolean }[]
/** The TypeScript source of one preset's profile types, or undefined when it declares none. */
export function profileSource(directory: string, name: string): string | undefined
/** `source` as Biome formats the file at `path` (relative to `root`). */
export function formatted(root: string, path: string, source: string): string

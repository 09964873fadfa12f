/** The public modules of the package at `root`: `[subpath, module path under src without .ts]`, sorted. */
export function publicModules(root: string): [subpath: string, module: string][]
/** The `exports` field for the public modules of the package at `root`. */
export function exportsMap(root: string): Record<string, { types: string; import: string } | string>

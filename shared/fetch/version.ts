// The package version for ID-1. A JSON import with an import attribute works the same under tsx,
// vitest and esbuild (which inlines the file at bundle time, so a bundled Lambda needs no
// package.json next to it). Only `version` is read; esbuild tree-shakes nothing of a default JSON
// import, but package.json is small.
import packageJson from '../../package.json' with { type: 'json' };

/** ID-1: the version in `mandari-ingestor/<version>`, from package.json. */
export const PACKAGE_VERSION: string = packageJson.version;

import { satisfies } from 'semver';

/**
 * The Node.js versions the services run on: the `engines.node` of package.json (a unit test keeps
 * the two equal). `.npmrc` sets `engine-strict`, so `npm ci` refuses another version; this is the
 * same check when a service starts.
 */
export const SUPPORTED_NODE_VERSIONS = '>=24.11 <25';

/** Why this Node.js cannot run the services (one line, naming the required version), or null. */
export function unsupportedNodeReason(
  version: string = process.version,
  supported: string = SUPPORTED_NODE_VERSIONS,
): string | null {
  if (satisfies(version, supported)) return null;
  return `Node.js ${supported} is required (.node-version names the exact one); this is ${version}`;
}

/** Exits with that line on standard error when this Node.js is not supported. */
export function exitOnUnsupportedNode(version: string = process.version): void {
  const reason = unsupportedNodeReason(version);
  if (!reason) return;
  process.stderr.write(`${reason}\n`);
  process.exit(1);
}

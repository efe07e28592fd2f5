import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  exitOnUnsupportedNode,
  SUPPORTED_NODE_VERSIONS,
  unsupportedNodeReason,
} from './node-runtime';

const root = join(__dirname, '..', '..', '..', '..');

describe('the supported Node.js versions', () => {
  it('are the engines of package.json', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      engines: { node: string };
    };
    expect(SUPPORTED_NODE_VERSIONS).toBe(pkg.engines.node);
  });

  it('include the version of .node-version, which CI and the images run', () => {
    const pinned = readFileSync(join(root, '.node-version'), 'utf8').trim();
    expect(unsupportedNodeReason(`v${pinned}`)).toBeNull();
  });

  it.each(['v24.11.0', 'v24.18.0', 'v24.99.1'])('accept %s', (version) => {
    expect(unsupportedNodeReason(version)).toBeNull();
  });

  it.each(['v20.20.2', 'v22.21.0', 'v24.10.9', 'v25.0.0'])('refuse %s in one line', (version) => {
    expect(unsupportedNodeReason(version)).toBe(
      `Node.js >=24.11 <25 is required (.node-version names the exact one); this is ${version}`,
    );
  });
});

describe('exitOnUnsupportedNode', () => {
  afterEach(() => jest.restoreAllMocks());

  it('exits 1 after one line on standard error', () => {
    const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    exitOnUnsupportedNode('v20.20.2');
    expect(write.mock.calls).toEqual([
      ['Node.js >=24.11 <25 is required (.node-version names the exact one); this is v20.20.2\n'],
    ]);
    expect(exit).toHaveBeenCalledWith(1);
  });

  it('does nothing on a supported version', () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    exitOnUnsupportedNode('v24.18.0');
    expect(exit).not.toHaveBeenCalled();
  });
});

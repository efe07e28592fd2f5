import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exclusiveSlot } from './exclusive';

describe('exclusiveSlot', () => {
  const dir = mkdtempSync(join(tmpdir(), 'exclusive-'));
  const lockFile = join(dir, 'slot.lock');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('lets one holder in at a time: the next gets the slot once it is released', async () => {
    const release = await exclusiveSlot({ lockFile });
    let second: (() => void) | undefined;
    const waiting = exclusiveSlot({ lockFile }).then((r) => (second = r));
    await new Promise((resolve) => setImmediate(resolve));
    expect(second).toBeUndefined();
    release();
    await waiting;
    expect(second).toEqual(expect.any(Function));
    second!();
    expect(existsSync(lockFile)).toBe(false);
  });

  it('takes over a slot left by a process that no longer runs', async () => {
    writeFileSync(lockFile, '2147483646'); // no such process
    const release = await exclusiveSlot({ lockFile, timeoutMs: 1_000 });
    release();
  });

  it('gives up at its deadline while a live process holds it', async () => {
    writeFileSync(lockFile, String(process.ppid));
    await expect(exclusiveSlot({ lockFile, timeoutMs: 300 })).rejects.toThrow(/held by process/);
    rmSync(lockFile);
  });
});

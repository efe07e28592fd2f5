#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional binaries (@swc/core-darwin-arm64,
// sass-embedded-win32-x64, ...). This workplace's registry answers 404 for packages built for
// other platforms, so npm cannot record them, and npm 11's `npm ci` then refuses the lockfile
// ("Missing: ... from lock file"). Each missing entry gets the version its parent pins and the
// os/cpu/libc read from its name, which is what npm itself would write; `npm ci` skips them on
// a platform they do not fit. Run after every `npm install`:  node tools/scripts/complete-lockfile.mjs
// With --check it changes nothing and exits 1 when entries are missing.
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS = [
  'darwin',
  'linux',
  'win32',
  'android',
  'freebsd',
  'openbsd',
  'netbsd',
  'sunos',
  'aix',
  'openharmony',
];
const CPU = {
  x64: 'x64',
  amd64: 'x64',
  arm64: 'arm64',
  aarch64: 'arm64',
  ia32: 'ia32',
  x86: 'ia32',
  arm: 'arm',
  armv7: 'arm',
  riscv64: 'riscv64',
  loong64: 'loong64',
  s390x: 's390x',
  ppc64: 'ppc64',
  ppc64le: 'ppc64',
  mips64el: 'mips64el',
  wasm32: 'wasm32',
};

function platformOf(name) {
  // Catch-alls for "any other CPU" and "any other OS" (sass-embedded-all-unknown, -unknown-all).
  if (name.endsWith('-all-unknown')) return { cpu: ['!arm', '!arm64', '!riscv64', '!x64'] };
  if (name.endsWith('-unknown-all')) return { os: ['!android', '!darwin', '!linux', '!win32'] };
  const parts = name.replace(/^@[^/]+\//, '').split(/[-_]/);
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.map((p) => CPU[p]).find(Boolean);
  if (!os && !cpu) return null;
  const entry = {};
  if (cpu) entry.cpu = [cpu];
  if (parts.includes('musl')) entry.libc = ['musl'];
  else if (parts.includes('gnu') || parts.includes('glibc')) entry.libc = ['glibc'];
  if (os) entry.os = [os];
  return entry;
}

let added = 0;
for (const [path, pkg] of Object.entries(packages)) {
  if (!pkg.optionalDependencies) continue;
  for (const [dep, spec] of Object.entries(pkg.optionalDependencies)) {
    const nested = `${path ? `${path}/` : ''}node_modules/${dep}`;
    const hoisted = `node_modules/${dep}`;
    if (packages[nested] || packages[hoisted]) continue;
    const platform = platformOf(dep);
    const version = String(spec).replace(/^[\^~=]/, '');
    if (!platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    const flags = pkg.dev ? { dev: true } : pkg.devOptional ? { devOptional: true } : {};
    packages[hoisted] = { version, ...platform, ...flags, optional: true };
    added += 1;
  }
}
if (process.argv.includes('--check')) {
  console.log(
    added
      ? `complete-lockfile: ${added} entries missing; run node tools/scripts/complete-lockfile.mjs`
      : 'complete-lockfile: complete',
  );
  process.exit(added ? 1 : 0);
}
const sorted = Object.fromEntries(
  Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : 1)),
);
lock.packages = sorted;
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`complete-lockfile: ${added} entries added`);

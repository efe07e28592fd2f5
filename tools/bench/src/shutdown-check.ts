/**
 * Reproduces the slow graceful shutdown of card-issue (docs/benchmarks.md, Findings 1):
 * starts the built service, loads it for 3 s at 50 connections, sends SIGTERM and times the
 * exit — after POST /api/v1/card-issue, after GET /api/health, and after POSTs then 10 s idle.
 *
 *   npx nx build card-issue
 *   SWC_NODE_PROJECT=tools/bench/tsconfig.json node -r @swc-node/register tools/bench/src/shutdown-check.ts
 *
 * Uses a throw-away database bench_shutdown_check on 127.0.0.1:5432 (dropped after).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..', '..');
const ADMIN = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'bench_shutdown_check';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function admin(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const user = () => ({
  firstName: 'Anna',
  lastName: 'Orlova',
  gender: 'FEMALE',
  clientType: 'FL',
  bankruptIndividual: false,
  bankruptEntrepreneur: false,
  contactInfo: { phone: '79161234567', email: 'anna@example.com' },
  embossingName: 'ANNA ORLOVA',
  passportData: {
    birthDate: '15-03-1990',
    birthPlace: 'Moscow',
    issueDate: '20-03-2010',
    series: '1234',
    number: String(100_000 + Math.floor(Math.random() * 800_000)),
  },
  actualAddress: {
    country: 'Russia',
    region: 'Moscow',
    city: 'Moscow',
    street: 'Tverskaya',
    building: '1',
  },
  registrationAddress: {
    country: 'Russia',
    region: 'Moscow',
    city: 'Moscow',
    street: 'Tverskaya',
    building: '1',
  },
  account: 'RUR',
  managerPin: 'M_0001',
});

async function once(mode: 'POST' | 'GET' | 'POST, then 10 s idle'): Promise<number> {
  const port = 39_000 + Math.floor(Math.random() * 1_000);
  const proc = spawn(process.execPath, ['dist/apps/card-issue/main.js'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: new URL(`/${DB}`, ADMIN).toString(),
      X_SECRET: 'shutdown-check',
      LOG_LEVEL: 'warn',
      SCHEDULER_ENABLED: 'false',
      OUTBOX_ENABLED: 'false',
    },
    stdio: 'ignore',
  });
  const exited = new Promise((resolve) => proc.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // still starting
    }
    await sleep(200);
  }
  const created = await fetch(`${url}/user-api/api/v1/users`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-secret': 'shutdown-check' },
    body: JSON.stringify(user()),
  });
  const { id } = (await created.json()) as { id: string };
  const body = JSON.stringify({
    request: {
      cardOwner: id,
      formFactor: 'VIRTUAL',
      cardHolder: { userId: id, nameless: false, embossedName: 'ANNA ORLOVA' },
    },
  });
  await autocannon({
    url,
    connections: 50,
    duration: 3,
    requests: [
      mode === 'GET'
        ? { method: 'GET', path: '/api/health' }
        : {
            method: 'POST',
            path: '/api/v1/card-issue',
            headers: { 'content-type': 'application/json' },
            body,
          },
    ],
  });
  if (mode === 'POST, then 10 s idle') await sleep(10_000);
  const signalled = Date.now();
  proc.kill('SIGTERM');
  await exited;
  return (Date.now() - signalled) / 1000;
}

async function main(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB}`);
  try {
    for (const mode of ['POST', 'GET', 'POST, then 10 s idle'] as const) {
      console.log(`${mode}: exit ${(await once(mode)).toFixed(1)} s after SIGTERM`);
    }
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  }
}

void main();

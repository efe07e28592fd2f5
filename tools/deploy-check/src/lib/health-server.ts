import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback stand-in for a service: answers GET {path} with the given status. */
export async function startHealthServer(
  path: string,
  status: () => number,
): Promise<{ port: number; close: () => Promise<void> }> {
  const server: Server = createServer((req, res) => {
    res.statusCode = req.method === 'GET' && req.url === path ? status() : 404;
    res.end(JSON.stringify({ status: res.statusCode === 200 ? 'UP' : 'DOWN' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Runs a command (asynchronously, so the in-process server keeps answering); its exit code. */
export function exitCodeOf(
  command: string[],
  env: Record<string, string | undefined> = {},
): Promise<number> {
  const [file, ...args] = command;
  return new Promise((resolve) => {
    execFile(file, args, { env: { ...process.env, ...env }, timeout: 20_000 }, (error) => {
      resolve(error ? (typeof error.code === 'number' ? error.code : -1) : 0);
    });
  });
}

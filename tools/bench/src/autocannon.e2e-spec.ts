import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { runResultOf } from './rows';

/**
 * autocannon against a local server that never answers its third request and answers every
 * fourth with 500: what the bench makes of autocannon's counters (a real run, since what they
 * count is autocannon's to say).
 */
describe('a load run read from autocannon (HTTP)', () => {
  let server: Server;
  let url: string;
  let received = 0;
  let failed = 0;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      received++;
      if (received === 3) return; // never answered: autocannon times it out
      const status = received % 4 === 0 ? 500 : 200;
      if (status !== 200) failed++;
      res.writeHead(status).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('counts every failed request once: the timeout and the non-2xx answers', async () => {
    const result = await autocannon({ url, connections: 2, amount: 20, timeout: 1 });
    const run = runResultOf(result, 190, 80);
    expect(received).toBe(20);
    expect(failed).toBe(5);
    expect(run.errors).toBe(failed + 1);
    expect(run.requests).toBe(19);
    expect(run.cpuMsPerRequest).toBe(10);
  });
});

import { AddressInfo, Server, Socket, createServer, connect } from 'node:net';

/**
 * A loopback TCP proxy in front of a server (here: the database) that a test can cut: while
 * cut, every open connection is reset and a new one is accepted and reset at once, as when
 * the server goes away; restore() lets connections through again.
 */
export interface TcpProxy {
  /** The target URL with its host and port replaced by the proxy's. */
  url: string;
  cut(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(targetUrl: string): Promise<TcpProxy> {
  const target = new URL(targetUrl);
  const sockets = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return void client.resetAndDestroy();
    const upstream = connect({ host: target.hostname, port: Number(target.port || 5432) });
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(targetUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as AddressInfo).port);
  return {
    url: url.toString(),
    cut: () => {
      cut = true;
      for (const socket of sockets) socket.resetAndDestroy();
    },
    restore: () => {
      cut = false;
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

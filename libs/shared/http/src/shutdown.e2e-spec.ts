import { Agent, request as httpRequest } from 'node:http';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Test } from '@nestjs/testing';
import { createHttpAdapter } from './adapter';
import { installGracefulShutdown } from './shutdown';

@Controller('slow')
class SlowController {
  @Get()
  async slow(): Promise<{ ok: true }> {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { ok: true };
  }
}

@Module({ controllers: [SlowController] })
class SlowModule {}

function get(
  port: number,
  agent: Agent,
): Promise<{ status: number; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/slow', agent }, (res) => {
      res.resume();
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, connection: res.headers.connection }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('installGracefulShutdown: closing with keep-alive requests in flight', () => {
  it('answers them with Connection: close, so the server closes at once instead of after keepAliveTimeout', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [SlowModule] }).compile();
    const app = moduleRef.createNestApplication<NestFastifyApplication>(createHttpAdapter(), {
      logger: false,
    });
    installGracefulShutdown(app);
    await app.listen(0, '127.0.0.1');
    const { port } = app.getHttpServer().address() as { port: number };
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, agent)).connection).toBe('keep-alive');
      const inFlight = Promise.all([get(port, agent), get(port, agent)]);
      await new Promise((resolve) => setTimeout(resolve, 100));
      // Without the header the close would wait for Fastify's keepAliveTimeout (72 s), past
      // this test's timeout.
      const closed = app.close();
      const answers = await inFlight;
      await closed;
      expect(answers).toEqual([
        { status: 200, connection: 'close' },
        { status: 200, connection: 'close' },
      ]);
    } finally {
      agent.destroy();
    }
  });
});

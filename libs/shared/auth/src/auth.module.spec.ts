import { Logger } from '@nestjs/common';
import { AuthModule } from './auth.module';

describe('AuthModule', () => {
  afterEach(() => jest.restoreAllMocks());

  it('warns at start-up when production runs with AUTH_MODE=none, and only then', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    new AuthModule({ mode: 'none', realm: 'svc', production: true }).onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toMatch(/^AUTH_MODE=none in production/);

    warn.mockClear();
    new AuthModule({ mode: 'none', realm: 'svc', production: false }).onModuleInit();
    expect(warn).not.toHaveBeenCalled();
  });
});

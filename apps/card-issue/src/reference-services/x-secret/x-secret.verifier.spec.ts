import { Logger } from '@nestjs/common';
import { validateEnvironment } from '@bank/shared/config';
import { CardIssueEnvironment, DEV_X_SECRET } from '../../config/environment.config';
import { XSecretVerifier } from './x-secret.verifier';

describe('XSecretVerifier', () => {
  afterEach(() => jest.restoreAllMocks());

  const verifier = (raw: Record<string, string>) =>
    new XSecretVerifier(validateEnvironment(CardIssueEnvironment, raw));

  it('accepts exactly the configured secret', () => {
    const v = verifier({ X_SECRET: 'abc123' });
    expect(v.matches('abc123')).toBe(true);
    for (const wrong of ['abc124', 'abc12', 'abc1234', 'ABC123', '', undefined, ['abc123'], 42]) {
      expect(v.matches(wrong)).toBe(false);
    }
  });

  it('warns once at start-up when it falls back to the development secret, without the real one', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const fallback = verifier({});
    fallback.onModuleInit();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0][0])).toContain('X_SECRET is not set');
    expect(fallback.matches(DEV_X_SECRET)).toBe(true);

    warn.mockClear();
    verifier({ X_SECRET: 'configured' }).onModuleInit();
    expect(warn).not.toHaveBeenCalled();
  });
});

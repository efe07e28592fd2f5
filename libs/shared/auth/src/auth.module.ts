import { DynamicModule, Global, Inject, Logger, Module, OnModuleInit } from '@nestjs/common';
import { AUTH_SETTINGS, AuthSettings } from './auth.settings';
import { BearerAuthGuard } from './bearer-auth.guard';
import { TokenVerifier } from './token.verifier';

/** The token verifier and the guard of RequireScopes, global so every feature module finds them. */
@Global()
@Module({})
export class AuthModule implements OnModuleInit {
  private readonly logger = new Logger('Auth');

  constructor(@Inject(AUTH_SETTINGS) private readonly settings: AuthSettings) {}

  static forRoot(settings: AuthSettings): DynamicModule {
    return {
      module: AuthModule,
      providers: [{ provide: AUTH_SETTINGS, useValue: settings }, TokenVerifier, BearerAuthGuard],
      exports: [AUTH_SETTINGS, TokenVerifier, BearerAuthGuard],
    };
  }

  onModuleInit(): void {
    if (this.settings.mode === 'none' && this.settings.production) {
      this.logger.warn(
        'AUTH_MODE=none in production: the API accepts requests without authentication ' +
          '(set AUTH_MODE=jwt to require bearer tokens).',
      );
    }
  }
}

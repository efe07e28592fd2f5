import { Module } from '@nestjs/common';
import { XSecretGuard } from './x-secret.guard';
import { XSecretVerifier } from './x-secret.verifier';

/** Imported by every reference service module so that one verifier (and one warning) serves them all. */
@Module({ providers: [XSecretVerifier, XSecretGuard], exports: [XSecretVerifier, XSecretGuard] })
export class XSecretModule {}

import { Inject, Injectable, Logger } from '@nestjs/common';
import { IdempotencyLease, KeyConflicts, runIdempotent } from '@bank/shared/idempotency';
import { ManagersService } from '../managers/managers.service';
import { ClientsIdempotencyService } from './clients-idempotency.service';
import { ClientEntity } from './entities/client.entity';
import { AccountNumberGenerator } from './account-number.generator';
import {
  AccountNumberExhaustedError,
  AccountNumberTakenError,
  ClientNotFoundError,
  IdempotencyKeyInProgressError,
  IdempotencyKeyReusedError,
  ClientUnderageError,
  PassportOutdatedError,
} from './clients.errors';
import { toClientResponse, toPassportColumns } from './clients.mapper';
import { ClientsRepository } from './clients.repository';
import { ClientResponseDto } from './dto/client-response.dto';
import { PassportDataDto } from './dto/passport-data.dto';
import { RegisterClientDto } from './dto/register-client.dto';
import { UpdatePassportDto } from './dto/update-passport.dto';
import { checkAgeAndPassport } from './passport.rules';
import { BUSINESS_TIME_ZONE, Clock, localDateIn, parseDdMmYyyy } from '@bank/shared/calendar';

/** What POST /api/clients answers: the ClientResponse as JSON text, sent (and replayed) as is. */
export interface RegisterResult {
  body: string;
  /** True when an Idempotency-Key replayed an earlier response. */
  replayed: boolean;
}

/** Draws of a fresh account number before giving up; with 10^12 numbers one is plenty. */
const ACCOUNT_NUMBER_ATTEMPTS = 5;
const DEFAULT_ACCOUNTING_MODE = 100;

/** How this service refuses an Idempotency-Key (runIdempotent). */
const KEY_CONFLICTS: KeyConflicts = {
  reused: () => new IdempotencyKeyReusedError(),
  inProgress: (retryAfterSeconds) => new IdempotencyKeyInProgressError(retryAfterSeconds),
};

@Injectable()
export class ClientsService {
  private readonly logger = new Logger(ClientsService.name);

  constructor(
    private readonly clients: ClientsRepository,
    private readonly managers: ManagersService,
    private readonly accountNumbers: AccountNumberGenerator,
    private readonly idempotency: ClientsIdempotencyService,
    private readonly clock: Clock,
    @Inject(BUSINESS_TIME_ZONE) private readonly timeZone: string,
  ) {}

  /**
   * Registers a client under an optional Idempotency-Key: the same key with the same body
   * replays the first response (the client it created), with another body it is a conflict.
   */
  async register(request: RegisterClientDto, idempotencyKey?: string): Promise<RegisterResult> {
    if (!idempotencyKey) return { body: await this.registerOnce(request, null), replayed: false };
    return runIdempotent(this.idempotency, idempotencyKey, request, KEY_CONFLICTS, (lease) =>
      this.registerOnce(request, lease),
    );
  }

  /**
   * Registers a client and opens the account: age and passport rules (spec 2.4), then the
   * manager, then one INSERT whose constraints decide passport and account-number uniqueness
   * (with the key's response in the same transaction). Returns the response as JSON text.
   */
  private async registerOnce(
    request: RegisterClientDto,
    lease: IdempotencyLease | null,
  ): Promise<string> {
    const now = this.clock.now();
    this.enforcePassportRules(request.passportData, now, 'registration');
    await this.managers.requireByPin(request.managerPin);

    const { actualAddress: actual, registrationAddress: registration } = request;
    const client = {
      lastName: request.lastName,
      firstName: request.firstName,
      middleName: request.middleName,
      gender: request.gender,
      clientType: request.clientType,
      bankruptIndividual: request.bankruptIndividual,
      bankruptEntrepreneur: request.bankruptEntrepreneur,
      embossingName: request.embossingName,
      phone: request.contactInfo.phone,
      email: request.contactInfo.email,
      ...toPassportColumns(request.passportData),
      actualCountry: actual.country,
      actualRegion: actual.region,
      actualCity: actual.city,
      actualStreet: actual.street,
      actualBuilding: actual.building,
      actualApartment: actual.apartment,
      registrationCountry: registration.country,
      registrationRegion: registration.region,
      registrationCity: registration.city,
      registrationStreet: registration.street,
      registrationBuilding: registration.building,
      registrationApartment: registration.apartment,
      managerPin: request.managerPin,
      accountCurrency: request.account,
      accountingMode: DEFAULT_ACCOUNTING_MODE,
      registeredAt: now,
      actualizedAt: now,
    };

    for (let attempt = 1; attempt <= ACCOUNT_NUMBER_ATTEMPTS; attempt++) {
      const accountNumber = this.accountNumbers.next(request.account);
      try {
        const row = { ...client, accountNumber };
        const bodyOf = (saved: ClientEntity) =>
          JSON.stringify(toClientResponse(saved, this.timeZone));
        if (!lease) return bodyOf(await this.clients.insert(row));
        return await this.clients.transaction(async (manager) => {
          const body = bodyOf(await this.clients.insert(row, manager));
          await lease.complete(manager, { status: 201, body });
          return body;
        });
      } catch (error) {
        if (!(error instanceof AccountNumberTakenError)) throw error;
        this.logger.warn(`Account number collision (attempt ${attempt}), drawing another`);
      }
    }
    throw new AccountNumberExhaustedError(ACCOUNT_NUMBER_ATTEMPTS);
  }

  async findById(id: string): Promise<ClientResponseDto> {
    const client = await this.clients.findById(id);
    if (!client) throw new ClientNotFoundError(id);
    return toClientResponse(client, this.timeZone);
  }

  /** Replaces the passport; the new one must pass the rules of 2.4 like at registration. */
  async updatePassport(id: string, request: UpdatePassportDto): Promise<ClientResponseDto> {
    const now = this.clock.now();
    if (!(await this.clients.findById(id))) throw new ClientNotFoundError(id);
    this.enforcePassportRules(request.passportData, now, 'passport-update');
    const updated = await this.clients.updatePassport(
      id,
      toPassportColumns(request.passportData),
      now,
    );
    if (!updated) throw new ClientNotFoundError(id);
    return toClientResponse(updated, this.timeZone);
  }

  private enforcePassportRules(
    passport: PassportDataDto,
    now: Date,
    operation: 'registration' | 'passport-update',
  ): void {
    const birthDate = parseDdMmYyyy(passport.birthDate);
    const issueDate = parseDdMmYyyy(passport.issueDate);
    if (!birthDate || !issueDate) {
      throw new RangeError('Passport dates reach the service only after validation');
    }
    const violation = checkAgeAndPassport(
      { birthDate, issueDate },
      localDateIn(now, this.timeZone),
    );
    if (violation?.kind === 'UNDERAGE') {
      throw new ClientUnderageError(violation.age, violation.adultOn, operation);
    }
    if (violation?.kind === 'PASSPORT_OUTDATED') {
      throw new PassportOutdatedError(violation.replacementAge, violation.lastGraceDay);
    }
  }
}

import { Inject, Injectable } from '@nestjs/common';
import { AddressDto, CreateUserDto } from '../../contracts/user.dto';
import { UserDto } from './dto/user.dto';
import { AddressColumns, UserEntity } from './entities/user.entity';
import { UsersRepository } from './users.repository';
import {
  UserIdempotencyKeyReusedError,
  UserIdsExhaustedError,
  UserNotFoundError,
  UserPassportTakenError,
} from './users.errors';

/** 36^5 ids: a collision is rare, ten in a row means something else is wrong. */
export const ID_ATTEMPTS = 10;

/** Source of new user ids (generateUserId); a token so tests can force collisions. */
export const USER_ID_GENERATOR = Symbol('USER_ID_GENERATOR');
export type UserIdGenerator = () => string;

@Injectable()
export class UsersService {
  constructor(
    private readonly repository: UsersRepository,
    @Inject(USER_ID_GENERATOR) private readonly nextId: UserIdGenerator,
  ) {}

  /**
   * Creates a user. With an idempotency key, a repeat answers the user that key created (same
   * passport) instead of a passport conflict; the key with another passport is a 409.
   */
  async create(input: CreateUserDto, idempotencyKey?: string): Promise<UserDto> {
    if (idempotencyKey !== undefined) {
      const earlier = await this.createdWith(idempotencyKey, input);
      if (earlier) return earlier;
    }
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
      const entity = toEntity(this.nextId(), input, idempotencyKey ?? null);
      const outcome = await this.repository.insert(entity);
      if (outcome === 'inserted') return toDto(entity);
      if (outcome === 'key-taken') {
        // A concurrent create with the same key won the race: answer its user.
        const earlier = await this.createdWith(idempotencyKey as string, input);
        if (earlier) return earlier;
        continue;
      }
      if (outcome === 'passport-taken') {
        // A concurrent create with the same key may have taken the passport first.
        const earlier =
          idempotencyKey === undefined ? null : await this.createdWith(idempotencyKey, input);
        if (earlier) return earlier;
        throw new UserPassportTakenError(input.passportData.series, input.passportData.number);
      }
    }
    throw new UserIdsExhaustedError();
  }

  private async createdWith(key: string, input: CreateUserDto): Promise<UserDto | null> {
    const earlier = await this.repository.findByIdempotencyKey(key);
    if (!earlier) return null;
    const { series, number } = input.passportData;
    if (earlier.passportSeries !== series || earlier.passportNumber !== number) {
      throw new UserIdempotencyKeyReusedError();
    }
    return toDto(earlier);
  }

  async get(id: string): Promise<UserDto> {
    const entity = await this.repository.findById(id);
    if (!entity) throw new UserNotFoundError(id);
    return toDto(entity);
  }

  async list(): Promise<UserDto[]> {
    return (await this.repository.findAll()).map(toDto);
  }

  async delete(id: string): Promise<void> {
    if (!(await this.repository.delete(id))) throw new UserNotFoundError(id);
  }
}

export function toEntity(
  id: string,
  input: CreateUserDto,
  idempotencyKey: string | null,
): UserEntity {
  const entity = new UserEntity();
  Object.assign(entity, {
    id,
    firstName: input.firstName,
    middleName: input.middleName ?? null,
    lastName: input.lastName,
    gender: input.gender,
    clientType: input.clientType,
    bankruptIndividual: input.bankruptIndividual,
    bankruptEntrepreneur: input.bankruptEntrepreneur,
    phone: input.contactInfo.phone,
    email: input.contactInfo.email,
    embossingName: input.embossingName,
    birthDate: input.passportData.birthDate,
    birthPlace: input.passportData.birthPlace,
    issueDate: input.passportData.issueDate,
    passportSeries: input.passportData.series,
    passportNumber: input.passportData.number,
    actualAddress: toAddress(input.actualAddress),
    registrationAddress: toAddress(input.registrationAddress),
    account: input.account,
    managerPin: input.managerPin,
    idempotencyKey,
  } satisfies Omit<UserEntity, 'createdAt'>);
  return entity;
}

function toAddress(address: AddressDto): AddressColumns {
  const { country, region, city, street, building, apartment } = address;
  return apartment === undefined || apartment === null
    ? { country, region, city, street, building }
    : { country, region, city, street, building, apartment };
}

function toDto(entity: UserEntity): UserDto {
  const dto: UserDto = {
    id: entity.id,
    firstName: entity.firstName,
    lastName: entity.lastName,
    gender: entity.gender as UserDto['gender'],
    clientType: entity.clientType as UserDto['clientType'],
    bankruptIndividual: entity.bankruptIndividual,
    bankruptEntrepreneur: entity.bankruptEntrepreneur,
    contactInfo: { phone: entity.phone, email: entity.email },
    embossingName: entity.embossingName,
    passportData: {
      birthDate: entity.birthDate,
      birthPlace: entity.birthPlace,
      issueDate: entity.issueDate,
      series: entity.passportSeries,
      number: entity.passportNumber,
    },
    actualAddress: toAddress(entity.actualAddress),
    registrationAddress: toAddress(entity.registrationAddress),
    account: entity.account as UserDto['account'],
    managerPin: entity.managerPin,
  };
  if (entity.middleName !== null) dto.middleName = entity.middleName;
  return dto;
}

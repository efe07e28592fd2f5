import { Inject, Injectable } from '@nestjs/common';
import { AddressDto, CreateUserDto } from '../../contracts/user.dto';
import { UserDto } from './dto/user.dto';
import { AddressColumns, UserEntity } from './entities/user.entity';
import { UsersRepository } from './users.repository';
import { UserIdsExhaustedError, UserNotFoundError, UserPassportTakenError } from './users.errors';

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

  async create(input: CreateUserDto): Promise<UserDto> {
    for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
      const entity = toEntity(this.nextId(), input);
      const outcome = await this.repository.insert(entity);
      if (outcome === 'inserted') return toDto(entity);
      if (outcome === 'passport-taken') {
        throw new UserPassportTakenError(input.passportData.series, input.passportData.number);
      }
    }
    throw new UserIdsExhaustedError();
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

function toEntity(id: string, input: CreateUserDto): UserEntity {
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

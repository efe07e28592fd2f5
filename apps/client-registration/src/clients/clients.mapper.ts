import { ClientEntity } from './entities/client.entity';
import { ClientResponseDto } from './dto/client-response.dto';
import { PassportDataDto } from './dto/passport-data.dto';
import { LocalDate, formatDdMmYyyy, localWallClock, parseDdMmYyyy } from '@bank/shared/calendar';

/** Layout of registrationDate and actualizationDate (spec 2.2). */
export const DATE_TIME_LAYOUT = 'dd-MM-yyyy HH:mm:ss';

/** dd-MM-yyyy (already validated) -> the yyyy-MM-dd of a PostgreSQL date column. */
export function toIsoDate(ddMmYyyy: string): string {
  const date = parseDdMmYyyy(ddMmYyyy);
  if (!date) throw new RangeError(`Not a dd-MM-yyyy date: ${ddMmYyyy}`);
  return `${date.year.toString().padStart(4, '0')}-${pad(date.month)}-${pad(date.day)}`;
}

export function fromIsoDate(isoDate: string): LocalDate {
  const [year, month, day] = isoDate.split('-').map(Number);
  return { year, month, day };
}

export function toPassportColumns(
  passport: PassportDataDto,
): Pick<
  ClientEntity,
  'birthDate' | 'birthPlace' | 'passportIssueDate' | 'passportSeries' | 'passportNumber'
> {
  return {
    birthDate: toIsoDate(passport.birthDate),
    birthPlace: passport.birthPlace,
    passportIssueDate: toIsoDate(passport.issueDate),
    passportSeries: passport.series,
    passportNumber: passport.number,
  };
}

/** The instant as dd-MM-yyyy HH:mm:ss (DATE_TIME_LAYOUT) in the time zone. */
export function formatDateTime(instant: Date, timeZone: string): string {
  const local = localWallClock(instant, timeZone);
  return (
    `${pad(local.getUTCDate())}-${pad(local.getUTCMonth() + 1)}-${local.getUTCFullYear().toString().padStart(4, '0')} ` +
    `${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}`
  );
}

export function toClientResponse(client: ClientEntity, timeZone: string): ClientResponseDto {
  return {
    id: client.id,
    lastName: client.lastName,
    firstName: client.firstName,
    middleName: client.middleName,
    gender: client.gender,
    clientType: client.clientType,
    bankruptIndividual: client.bankruptIndividual,
    bankruptEntrepreneur: client.bankruptEntrepreneur,
    embossingName: client.embossingName,
    contactInfo: { phone: client.phone, email: client.email },
    passportData: {
      birthDate: formatDdMmYyyy(fromIsoDate(client.birthDate)),
      birthPlace: client.birthPlace,
      issueDate: formatDdMmYyyy(fromIsoDate(client.passportIssueDate)),
      series: client.passportSeries,
      number: client.passportNumber,
    },
    actualAddress: {
      country: client.actualCountry,
      region: client.actualRegion,
      city: client.actualCity,
      street: client.actualStreet,
      building: client.actualBuilding,
      apartment: client.actualApartment,
    },
    registrationAddress: {
      country: client.registrationCountry,
      region: client.registrationRegion,
      city: client.registrationCity,
      street: client.registrationStreet,
      building: client.registrationBuilding,
      apartment: client.registrationApartment,
    },
    account: {
      accountNumber: client.accountNumber,
      currency: client.accountCurrency,
      accountingMode: client.accountingMode,
    },
    managerPin: client.managerPin,
    registrationDate: formatDateTime(client.registeredAt, timeZone),
    actualizationDate: formatDateTime(client.actualizedAt, timeZone),
  };
}

function pad(n: number): string {
  return n.toString().padStart(2, '0');
}

import {
  CardIssueRequestBodyDto,
  CardIssueRequestDto,
  CourierDto,
  DeliveryDto,
} from '../src/card-issues/dto/card-issue-request.dto';
import { address } from './users.fixture';

/**
 * Fields named by the DTO, values free: tests also send wrong values on purpose. The
 * builders' results are valid (typed by the DTO) when the overrides are.
 */
export type Loose<T> = { [K in keyof T]?: unknown };

/** 12:00 in Moscow on 23-11-2026: the courier() date 24-11-2026 is tomorrow. */
export const NOW = '2026-11-23T09:00:00.000Z';

/** A courier delivery for tomorrow of 23-11-2026 (24-11-2026), 10:00-14:00. */
export function courier(overrides: Loose<CourierDto> = {}): CourierDto {
  return {
    address,
    recipient: {
      user: { firstName: 'Oleg', lastName: 'Sidorov', contactInfo: { phone: '79031112233' } },
    },
    date: '24-11-2026',
    timeSlot: { from: '10:00', to: '14:00' },
    ...overrides,
  } as CourierDto;
}

/** A virtual card for oneself: `owner` is card owner and holder. */
export function selfVirtual(
  owner: string,
  overrides: Loose<CardIssueRequestBodyDto> = {},
): CardIssueRequestDto {
  return {
    request: {
      cardOwner: owner,
      formFactor: 'VIRTUAL',
      cardHolder: { userId: owner, nameless: false, embossedName: 'IVAN PETROV' },
      ...overrides,
    } as CardIssueRequestBodyDto,
  };
}

/** A plastic card for oneself with the given delivery. */
export function selfPlastic(
  owner: string,
  delivery: Loose<DeliveryDto>,
  overrides: Loose<CardIssueRequestBodyDto> = {},
): CardIssueRequestDto {
  return selfVirtual(owner, { formFactor: 'PLASTIC', delivery, ...overrides });
}

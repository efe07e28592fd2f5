import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsQueryInteger } from '@bank/shared/validation';

/** Page size and start of the list endpoints (ranges: docs/decisions/0038-strict-input.md). */
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;
export const LIST_OFFSET = { min: 0, max: 1_000_000, default: 0 } as const;

/** A page of a list, newest first: GET .../client/{clientId} and the webhook lists. */
export class PageQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_LIMIT.min,
    maximum: LIST_LIMIT.max,
    default: LIST_LIMIT.default,
    description: 'Items per page, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_LIMIT.min, LIST_LIMIT.max)
  limit: number = LIST_LIMIT.default;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_OFFSET.min,
    maximum: LIST_OFFSET.max,
    default: LIST_OFFSET.default,
    description: 'Items to skip, newest first, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_OFFSET.min, LIST_OFFSET.max)
  offset: number = LIST_OFFSET.default;
}

/** The page of GET .../client/{clientId}. */
export class ListByClientQueryDto extends PageQueryDto {}

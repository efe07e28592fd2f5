import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional } from 'class-validator';
import { IsQueryInteger } from '@bank/shared/validation';

/** Page size and start of GET .../client/{clientId} (ranges: docs/decisions.md). */
export const LIST_LIMIT = { min: 1, max: 1000, default: 100 } as const;
export const LIST_OFFSET = { min: 0, max: 1_000_000, default: 0 } as const;

export class ListByClientQueryDto {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_LIMIT.min,
    maximum: LIST_LIMIT.max,
    default: LIST_LIMIT.default,
    description: 'Records per page, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_LIMIT.min, LIST_LIMIT.max)
  limit: number = LIST_LIMIT.default;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: LIST_OFFSET.min,
    maximum: LIST_OFFSET.max,
    default: LIST_OFFSET.default,
    description: 'Records to skip, newest first, in decimal digits',
  })
  @IsOptional()
  @IsQueryInteger(LIST_OFFSET.min, LIST_OFFSET.max)
  offset: number = LIST_OFFSET.default;
}

import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';

export const MAX_TEXT = 150;

/** Address parts: required strings of at most 150 characters; apartment optional. */
export class AddressDto {
  @ApiProperty({ maxLength: MAX_TEXT, example: 'Россия' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  country!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Москва' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  region!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Москва' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  city!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Тверская' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  street!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: '1' })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  building!: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, example: '15' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  apartment?: string;
}

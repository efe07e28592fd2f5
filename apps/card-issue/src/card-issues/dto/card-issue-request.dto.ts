import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  IsBranchId,
  IsDdMmYyyy,
  EMBOSSED_NAME_PATTERN,
  IsEmbossedName,
  IsPersonName,
  IsPhone,
  IsRecipientUserId,
  IsTimeHhMm,
  IsUserId,
} from '@bank/shared/validation';
import { FORM_FACTORS, FormFactor } from '../card-issue-status.model';
import { AddressDto, CreateUserDto, MAX_TEXT, NAME_DESCRIPTION } from '../../contracts/user.dto';

export class CardHolderDto {
  @ApiPropertyOptional({
    example: 'X1A2B3',
    description: 'Existing user (card for oneself); X + 5 of A-Z 0-9',
  })
  @IsOptional()
  @IsUserId()
  userId?: string;

  @ApiProperty({
    example: false,
    description: 'true for a nameless card: userId, embossedName and user absent',
  })
  @IsBoolean()
  nameless!: boolean;

  @ApiPropertyOptional({
    maxLength: MAX_TEXT,
    example: 'IVAN PETROV',
    pattern: EMBOSSED_NAME_PATTERN.source,
    description: 'Uppercase Latin letters and spaces, at least one letter; with userId',
  })
  @IsOptional()
  @IsEmbossedName()
  @MaxLength(MAX_TEXT)
  embossedName?: string;

  @ApiPropertyOptional({
    type: CreateUserDto,
    description: 'A new user (card for a third party), the User object of spec 2.2',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CreateUserDto)
  user?: CreateUserDto;
}

export class SmsNotificationsDto {
  @ApiPropertyOptional({ example: '79161234567', description: '11 digits, starts with 7' })
  @IsOptional()
  @IsPhone()
  phoneNumber?: string;

  @ApiPropertyOptional({
    example: 'X1A2B3',
    description: "The phone number is taken from that user's profile",
  })
  @IsOptional()
  @IsUserId()
  userId?: string;
}

export class OptionsDto {
  @ApiPropertyOptional({ type: SmsNotificationsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => SmsNotificationsDto)
  smsNotifications?: SmsNotificationsDto;
}

export class ToBranchDto {
  @ApiProperty({ example: '0001', description: 'Exactly 4 digits' })
  @IsBranchId()
  id!: string;
}

export class RecipientContactInfoDto {
  @ApiProperty({ example: '79161234567' })
  @IsPhone()
  phone!: string;
}

export class RecipientUserDto {
  @ApiProperty({ maxLength: MAX_TEXT, example: 'Мария', description: NAME_DESCRIPTION })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  @IsPersonName()
  firstName!: string;

  @ApiProperty({ maxLength: MAX_TEXT, example: 'Петрова', description: NAME_DESCRIPTION })
  @IsString()
  @IsNotEmpty()
  @MaxLength(MAX_TEXT)
  @IsPersonName()
  lastName!: string;

  @ApiPropertyOptional({ maxLength: MAX_TEXT, description: NAME_DESCRIPTION })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TEXT)
  @IsPersonName()
  middleName?: string;

  @ApiProperty({ type: RecipientContactInfoDto })
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientContactInfoDto)
  contactInfo!: RecipientContactInfoDto;
}

/** Exactly one of userId (existing user) and user (new third party). */
export class RecipientDto {
  @ApiPropertyOptional({
    example: 'X1A2B3',
    description: 'Existing user: uppercase letter + 5 of A-Z 0-9',
  })
  @IsOptional()
  @IsRecipientUserId()
  userId?: string;

  @ApiPropertyOptional({ type: RecipientUserDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientUserDto)
  user?: RecipientUserDto;
}

export class TimeSlotDto {
  @ApiProperty({
    example: '10:00',
    description: 'H:mm or HH:mm; the slot lasts exactly 4 hours within 09:00-21:00',
  })
  @IsTimeHhMm()
  from!: string;

  @ApiProperty({ example: '14:00' })
  @IsTimeHhMm()
  to!: string;
}

export class CourierDto {
  @ApiProperty({ type: AddressDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AddressDto)
  address!: AddressDto;

  @ApiProperty({ type: RecipientDto })
  @IsObject()
  @ValidateNested()
  @Type(() => RecipientDto)
  recipient!: RecipientDto;

  @ApiProperty({
    example: '25-11-2026',
    description: 'dd-MM-yyyy, from tomorrow to today + 7 days (business time zone)',
  })
  @IsDdMmYyyy()
  date!: string;

  @ApiProperty({ type: TimeSlotDto })
  @IsObject()
  @ValidateNested()
  @Type(() => TimeSlotDto)
  timeSlot!: TimeSlotDto;
}

/** Exactly one delivery method. Required for PLASTIC, forbidden for VIRTUAL. */
export class DeliveryDto {
  @ApiPropertyOptional({ type: ToBranchDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ToBranchDto)
  toBranch?: ToBranchDto;

  @ApiPropertyOptional({ type: CourierDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CourierDto)
  courier?: CourierDto;
}

export class CardIssueRequestBodyDto {
  @ApiProperty({ example: 'X1A2B3', description: 'User id: X + 5 of A-Z 0-9' })
  @IsUserId()
  cardOwner!: string;

  @ApiProperty({ enum: FORM_FACTORS })
  @IsIn(FORM_FACTORS)
  formFactor!: FormFactor;

  @ApiProperty({ type: CardHolderDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CardHolderDto)
  cardHolder!: CardHolderDto;

  @ApiPropertyOptional({ type: OptionsDto })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => OptionsDto)
  options?: OptionsDto;

  @ApiPropertyOptional({
    type: DeliveryDto,
    description: 'Required for PLASTIC, forbidden for VIRTUAL',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => DeliveryDto)
  delivery?: DeliveryDto;
}

/** CardIssueRequest (card-issue spec 2.2). */
export class CardIssueRequestDto {
  @ApiProperty({ type: CardIssueRequestBodyDto })
  @IsObject()
  @ValidateNested()
  @Type(() => CardIssueRequestBodyDto)
  request!: CardIssueRequestBodyDto;
}

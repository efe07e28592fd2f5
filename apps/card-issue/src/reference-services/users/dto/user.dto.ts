import { ApiProperty } from '@nestjs/swagger';
import { CreateUserDto } from '../../../contracts/user.dto';

/** A stored user: the User object of spec 2.2 plus the id the service gave it. */
export class UserDto extends CreateUserDto {
  @ApiProperty({ pattern: '^X[A-Z0-9]{5}$', example: 'X1A2B3', description: 'X + 5 of A-Z, 0-9' })
  id!: string;
}

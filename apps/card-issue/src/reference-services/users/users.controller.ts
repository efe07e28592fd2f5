import { Body, Controller, Delete, Get, Headers, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
  ApiHeader,
  ApiNoContentResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
} from '@nestjs/swagger';
import { XSecretProtected } from '../x-secret/x-secret.decorator';
import { USER_SERVICE_TAG } from '../reference-services.openapi';
import { CreateUserDto } from '../../contracts/user.dto';
import { UserDto } from './dto/user.dto';
import { UsersService } from './users.service';
import { CardIssueErrorBody } from '../../errors/card-issue-error-body.dto';
import { RequestValidationError } from '@bank/shared/errors';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const USER_ID_PARAM = {
  name: 'id',
  example: 'X1A2B3',
  description: 'User id: X + 5 of A-Z 0-9 (an id of another form names no user: 404)',
};

@XSecretProtected(USER_SERVICE_TAG)
@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ summary: 'Create a user' })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'Up to 255 visible ASCII characters. A create repeated with the same key answers the user that key ' +
      'created (the card issue gateway sends one, so its retries after a timeout make no second user).',
  })
  @ApiCreatedResponse({
    type: UserDto,
    description: 'The stored user with its new id (or the one created earlier with the same key)',
  })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Validation failed' })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description:
      'A user with the same passport series and number is already registered, or the Idempotency-Key ' +
      'already created a user with another passport',
  })
  create(
    @Body() body: CreateUserDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
  ): Promise<UserDto> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new RequestValidationError([
        { path: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' },
      ]);
    }
    return this.users.create(body, idempotencyKey);
  }

  @Get()
  @ApiOperation({ summary: 'Get all users' })
  @ApiOkResponse({ type: UserDto, isArray: true, description: 'Every user, oldest first' })
  list(): Promise<UserDto[]> {
    return this.users.list();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a user by id' })
  @ApiParam(USER_ID_PARAM)
  @ApiOkResponse({ type: UserDto, description: 'The user' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No user with that id' })
  get(@Param('id') id: string): Promise<UserDto> {
    return this.users.get(id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user' })
  @ApiParam(USER_ID_PARAM)
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No user with that id' })
  delete(@Param('id') id: string): Promise<void> {
    return this.users.delete(id);
  }
}

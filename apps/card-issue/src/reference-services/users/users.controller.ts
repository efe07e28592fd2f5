import { Body, Controller, Delete, Get, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiConflictResponse,
  ApiCreatedResponse,
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
import { CardIssueErrorBody } from '@bank/shared/nest';

@XSecretProtected(USER_SERVICE_TAG)
@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Post()
  @ApiOperation({ summary: 'Create a user' })
  @ApiCreatedResponse({ type: UserDto, description: 'The stored user with its new id' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Validation failed' })
  @ApiConflictResponse({
    type: CardIssueErrorBody,
    description: 'A user with the same passport series and number is already registered',
  })
  create(@Body() body: CreateUserDto): Promise<UserDto> {
    return this.users.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'Get all users' })
  @ApiOkResponse({ type: UserDto, isArray: true })
  list(): Promise<UserDto[]> {
    return this.users.list();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a user by id' })
  @ApiParam({ name: 'id', example: 'X1A2B3' })
  @ApiOkResponse({ type: UserDto })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No user with that id' })
  get(@Param('id') id: string): Promise<UserDto> {
    return this.users.get(id);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user' })
  @ApiParam({ name: 'id', example: 'X1A2B3' })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No user with that id' })
  delete(@Param('id') id: string): Promise<void> {
    return this.users.delete(id);
  }
}

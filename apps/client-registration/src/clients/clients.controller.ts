import {
  Body,
  Controller,
  Get,
  Headers,
  HttpCode,
  HttpStatus,
  Post,
  Put,
  Res,
} from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiHeader,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { FastifyReply } from 'fastify';
import { RequestValidationError } from '@bank/shared/errors';
import { RequireScopes } from '@bank/shared/auth';
import { CLIENTS_SCOPES } from './clients.scopes';
import { ClientsService } from './clients.service';
import { ApiGetClientErrors, ApiRegisterErrors, ApiUpdatePassportErrors } from './clients.openapi';
import { ClientIdParam } from './dto/client-id-param.decorator';
import { ClientResponseDto } from './dto/client-response.dto';
import { RegisterClientDto } from './dto/register-client.dto';
import { UpdatePassportDto } from './dto/update-passport.dto';

const IDEMPOTENT_REPLAY_HEADER = 'idempotent-replayed';
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const ID_PARAM = {
  name: 'id',
  description: 'Идентификатор клиента (UUID)',
  format: 'uuid',
  example: '3f2b8c1e-9a4d-4e57-b1c2-7d6e5f4a3b21',
} as const;

@ApiTags('clients')
@Controller('api/clients')
export class ClientsController {
  constructor(private readonly clients: ClientsService) {}

  @Post()
  @RequireScopes(CLIENTS_SCOPES.write)
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    summary: 'Зарегистрировать клиента и открыть счёт',
    description:
      'Проверяет поля (2.1), возраст и срок действия паспорта (2.4) на текущую бизнес-дату, PIN менеджера, ' +
      'уникальность паспорта, открывает счёт в запрошенной валюте. registrationDate и actualizationDate совпадают.',
  })
  @ApiHeader({
    name: 'Idempotency-Key',
    required: false,
    description:
      'До 255 видимых символов ASCII. Повтор с тем же ключом и тем же телом возвращает первый ответ байт в байт ' +
      '(заголовок Idempotent-Replayed: true) и никого не регистрирует; с другим телом — 409. Пока запрос с этим ' +
      'ключом выполняется, повтор ждёт его (IDEMPOTENCY_WAIT_MS, 10 с), затем 409 с Retry-After; ключ, чей запрос ' +
      'оборвался, переходит к повтору по истечении аренды (IDEMPOTENCY_LEASE_MS, 5 с). Ключи хранятся 24 часа.',
  })
  @ApiBody({ type: RegisterClientDto })
  @ApiCreatedResponse({
    type: ClientResponseDto,
    description: 'Клиент зарегистрирован, счёт открыт',
    headers: {
      'Idempotent-Replayed': {
        description: 'true, если это повтор ответа на прежний запрос с тем же Idempotency-Key',
        schema: { type: 'string', enum: ['true'] },
      },
    },
  })
  @ApiRegisterErrors()
  async register(
    @Body() body: RegisterClientDto,
    @Headers('idempotency-key') idempotencyKey: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string> {
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw new RequestValidationError([
        { path: 'Idempotency-Key', message: 'должен содержать от 1 до 255 видимых символов ASCII' },
      ]);
    }
    const { body: sent, replayed } = await this.clients.register(body, idempotencyKey);
    if (replayed) void reply.header(IDEMPOTENT_REPLAY_HEADER, 'true');
    // The JSON text itself, so a replay sends the very bytes of the first answer.
    void reply.header('content-type', 'application/json; charset=utf-8');
    return sent;
  }

  @Get(':id')
  @RequireScopes(CLIENTS_SCOPES.read)
  @ApiOperation({ summary: 'Получить клиента по id' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: ClientResponseDto, description: 'Клиент' })
  @ApiGetClientErrors()
  findOne(@ClientIdParam() id: string): Promise<ClientResponseDto> {
    return this.clients.findById(id);
  }

  @Put(':id/passport')
  @RequireScopes(CLIENTS_SCOPES.write)
  @ApiOperation({
    summary: 'Заменить паспортные данные клиента',
    description:
      'Та же валидация и те же правила возраста и срока действия паспорта (2.4), что при регистрации; ' +
      'паспорт не должен принадлежать другому клиенту. Обновляет actualizationDate.',
  })
  @ApiParam(ID_PARAM)
  @ApiBody({ type: UpdatePassportDto })
  @ApiOkResponse({ type: ClientResponseDto, description: 'Клиент с новыми паспортными данными' })
  @ApiUpdatePassportErrors()
  updatePassport(
    @ClientIdParam() id: string,
    @Body() body: UpdatePassportDto,
  ): Promise<ClientResponseDto> {
    return this.clients.updatePassport(id, body);
  }
}

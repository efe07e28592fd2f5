import { Body, Controller, Get, HttpCode, HttpStatus, Post, Put } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
} from '@nestjs/swagger';
import { ClientsService } from './clients.service';
import { ApiGetClientErrors, ApiRegisterErrors, ApiUpdatePassportErrors } from './clients.openapi';
import { ClientIdParam } from './dto/client-id-param.decorator';
import { ClientResponseDto } from './dto/client-response.dto';
import { RegisterClientDto } from './dto/register-client.dto';
import { UpdatePassportDto } from './dto/update-passport.dto';

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
  @HttpCode(HttpStatus.CREATED)
  @ApiOperation({
    summary: 'Зарегистрировать клиента и открыть счёт',
    description:
      'Проверяет поля (2.1), возраст и срок действия паспорта (2.4) на текущую бизнес-дату, PIN менеджера, ' +
      'уникальность паспорта, открывает счёт в запрошенной валюте. registrationDate и actualizationDate совпадают.',
  })
  @ApiBody({ type: RegisterClientDto })
  @ApiCreatedResponse({
    type: ClientResponseDto,
    description: 'Клиент зарегистрирован, счёт открыт',
  })
  @ApiRegisterErrors()
  register(@Body() body: RegisterClientDto): Promise<ClientResponseDto> {
    return this.clients.register(body);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Получить клиента по id' })
  @ApiParam(ID_PARAM)
  @ApiOkResponse({ type: ClientResponseDto, description: 'Клиент' })
  @ApiGetClientErrors()
  findOne(@ClientIdParam() id: string): Promise<ClientResponseDto> {
    return this.clients.findById(id);
  }

  @Put(':id/passport')
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

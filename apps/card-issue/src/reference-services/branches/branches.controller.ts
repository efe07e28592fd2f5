import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiForbiddenResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import { BRANCH_SERVICE_TAG } from '../reference-services.openapi';
import { X_SECRET_SCHEME, XSecretGuard } from '../x-secret/x-secret.guard';
import { BranchIdParams } from './dto/branch-params.dto';
import { BranchDto } from './dto/branch.dto';
import { BranchesService } from './branches.service';
import { CardIssueErrorBody } from '@bank/shared/nest';

@ApiTags(BRANCH_SERVICE_TAG)
@ApiSecurity(X_SECRET_SCHEME)
@ApiForbiddenResponse({
  type: CardIssueErrorBody,
  description: 'X-secret header is invalid or missing',
})
@UseGuards(XSecretGuard)
@Controller('api/v1/branches')
export class BranchesController {
  constructor(private readonly branches: BranchesService) {}

  @Get()
  @ApiOperation({ summary: 'List all branches' })
  @ApiOkResponse({ type: BranchDto, isArray: true })
  list(): Promise<BranchDto[]> {
    return this.branches.list();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a branch by id' })
  @ApiOkResponse({ type: BranchDto })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Id is not exactly 4 digits' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No branch with that id' })
  get(@Param() params: BranchIdParams): Promise<BranchDto> {
    return this.branches.get(params.id);
  }
}

import { Controller, Get, Param } from '@nestjs/common';
import {
  ApiBadRequestResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
} from '@nestjs/swagger';
import { BRANCH_SERVICE_TAG } from '../reference-services.openapi';
import { XSecretProtected } from '../x-secret/x-secret.decorator';
import { BranchIdParams } from './dto/branch-params.dto';
import { BranchDto } from './dto/branch.dto';
import { BranchesService } from './branches.service';
import { CardIssueErrorBody } from '../../errors/card-issue-error-body.dto';

@XSecretProtected(BRANCH_SERVICE_TAG)
@Controller('api/v1/branches')
export class BranchesController {
  constructor(private readonly branches: BranchesService) {}

  @Get()
  @ApiOperation({ summary: 'List all branches' })
  @ApiOkResponse({ type: BranchDto, isArray: true, description: 'Every branch' })
  list(): Promise<BranchDto[]> {
    return this.branches.list();
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a branch by id' })
  @ApiOkResponse({ type: BranchDto, description: 'The branch' })
  @ApiBadRequestResponse({ type: CardIssueErrorBody, description: 'Id is not exactly 4 digits' })
  @ApiNotFoundResponse({ type: CardIssueErrorBody, description: 'No branch with that id' })
  get(@Param() params: BranchIdParams): Promise<BranchDto> {
    return this.branches.get(params.id);
  }
}

import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { generateUserId } from '@bank/shared/identifiers';
import { XSecretModule } from '../x-secret/x-secret.module';
import { DemoUserSeeder } from './demo-user';
import { UserEntity } from './entities/user.entity';
import { UsersController } from './users.controller';
import { UsersRepository } from './users.repository';
import { USER_ID_GENERATOR, UsersService } from './users.service';

/** Reference user service, mounted under {base_url}/user-api. */
@Module({
  imports: [TypeOrmModule.forFeature([UserEntity]), XSecretModule],
  controllers: [UsersController],
  providers: [
    UsersService,
    UsersRepository,
    DemoUserSeeder,
    { provide: USER_ID_GENERATOR, useValue: () => generateUserId() },
  ],
})
export class UsersModule {}

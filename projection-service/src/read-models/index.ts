import { accountingExportProjection } from './accounting-export/projection';
import { agencyProjection } from './agency/projection';
import { clientsProjection } from './clients/projection';
import { consultationsProjection } from './consultations/projection';
import { engagementsProjection } from './engagements/projection';
import { familyInvoicesProjection } from './family-invoices/projection';
import { invoicesProjection } from './invoices/projection';
import { lessonsProjection } from './lessons/projection';
import { moneyModelsProjection } from './money-models/projection';
import { payRunsProjection } from './pay-runs/projection';
import { payStatementsProjection } from './pay-statements/projection';
import type { Projection } from './projection';
import { remindersProjection } from './reminders/projection';
import { tutorsProjection } from './tutors/projection';
import { usersProjection } from './users/projection';
import { workshopsProjection } from './workshops/projection';

export const projections: Projection[] = [
  usersProjection,
  clientsProjection,
  tutorsProjection,
  engagementsProjection,
  lessonsProjection,
  invoicesProjection,
  agencyProjection,
  consultationsProjection,
  familyInvoicesProjection,
  workshopsProjection,
  remindersProjection,
  payRunsProjection,
  payStatementsProjection,
  accountingExportProjection,
  moneyModelsProjection,
];

import { clientsProjection } from './clients/projection';
import { engagementsProjection } from './engagements/projection';
import { invoicesProjection } from './invoices/projection';
import { lessonsProjection } from './lessons/projection';
import type { Projection } from './projection';
import { tutorsProjection } from './tutors/projection';
import { usersProjection } from './users/projection';

export const projections: Projection[] = [
  usersProjection,
  clientsProjection,
  tutorsProjection,
  engagementsProjection,
  lessonsProjection,
  invoicesProjection,
];

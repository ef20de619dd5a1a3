import { z } from 'zod';
import { agencyDetailsData } from '../agency';
import { defineEvent, type EventOf } from './define';

/** The agency's own details as a whole: the first start's seed, then each admin's save. */
export const AgencyDetailsSet = defineEvent('AgencyDetailsSet', 1, z.object({ details: agencyDetailsData }));

export const agencyEvents = [AgencyDetailsSet] as const;
export type AgencyEvent = EventOf<(typeof agencyEvents)[number]>;

import type pg from 'pg';

/**
 * What the workshop routes ask the read models: never for the capacity or for whether a
 * registration is invoiced (those are decided in streams), only to find which stream to ask.
 */
export function workshopLookups(db: pg.Pool) {
  return {
    /** A booking is linked to the family whose contact has its e-mail address (the first such family). */
    async familyWithEmail(email: string): Promise<string | null> {
      const found = await db.query(
        'select client_id from read.contacts where lower(email) = lower($1) order by client_id limit 1',
        [email.trim()],
      );
      return (found.rows[0]?.client_id as string | undefined) ?? null;
    },

    /** The event a registration is on now (its stream is then read to be sure). */
    async eventOfRegistration(registrationId: string): Promise<string | null> {
      const found = await db.query(
        `select event_id from read.workshop_registrations
          where id = $1 and status in ('registered', 'waitlisted') limit 1`,
        [registrationId],
      );
      return (found.rows[0]?.event_id as string | undefined) ?? null;
    },

    /**
     * The invoice a registration is on now, as the read models have it: only for a booking made
     * before registrations kept their account's key, whose address an erasure has since removed.
     */
    async invoicedPriceOf(registrationId: string): Promise<number | null> {
      const found = await db.query('select price_pence from read.workshop_invoiced where registration_id = $1', [
        registrationId,
      ]);
      const price = found.rows[0]?.price_pence as string | undefined;
      return price === undefined ? null : Number(price);
    },

    async invoiceOfRegistration(registrationId: string): Promise<string | null> {
      const found = await db.query('select invoice_id from read.workshop_invoiced where registration_id = $1', [
        registrationId,
      ]);
      return (found.rows[0]?.invoice_id as string | undefined) ?? null;
    },
  };
}
export type WorkshopLookups = ReturnType<typeof workshopLookups>;

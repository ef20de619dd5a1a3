import { addDays, todayIn } from '@agency/domain';
import type { RunningProduct } from '../product';
import { getAs, postAs } from './demo-requests';

type Event = { event: { id: string } };
type Booked = { registration: { id: string; status: 'registered' | 'waitlisted' } };
type Invoiced = { invoice: { id: string; total: number } };

const FIRST = ['Ava', 'Leo', 'Isla', 'Noah', 'Mia', 'Oscar', 'Ella', 'Finn', 'Ruby', 'Alfie', 'Lily', 'Jack'];
const ALLERGIES = ['', 'Peanuts', '', '', 'Dairy', '', 'Gluten', ''];

/**
 * Holiday workshops through the real routes: an event now past (booked while upcoming, then
 * dated back), a full one with a waiting list, and two more; public bookings (some by the demo
 * families' own e-mails, so linked to them), and registrations in every state: not invoiced,
 * invoiced, paid, moved and deleted.
 */
export async function seedWorkshops(product: RunningProduct, token: string, timeZone = 'Europe/London') {
  const get = getAs(product, token);
  const post = postAs(product, token);
  const today = todayIn(timeZone, new Date());
  const schedule = (description: string, days: number, capacity: number, price: number) =>
    post<Event>('/api/events', {
      description,
      dateTime: `${addDays(today, days)}T10:00`,
      durationMinutes: 180,
      price,
      capacity,
      location: 'St Giles Hall, Oxford',
    }).then((answer) => answer.event.id);
  const { clients } = await get<{ clients: { id: string; email?: string }[] }>('/api/clients?includeInactive=N');
  const familyEmails = clients.map((client) => client.email).filter((email): email is string => Boolean(email));
  let booked = 0;
  const book = async (eventId: string, n: number, children = 1) => {
    const email = familyEmails[n] ?? `workshop.parent${n}@example.com`;
    const surname = `Parent${n}`;
    booked++;
    // Booked by the admin on the parents' behalf: a public booking would wait for its address to confirm it.
    const { registration } = await post<Booked>('/api/events/register', {
      eventId,
      contact: {
        firstName: FIRST[n % FIRST.length],
        lastName: surname,
        address: [`${n + 1} Banbury Road`, 'Oxford'],
        postcode: 'OX2 6NN',
        email,
        phone: `07700 900${String(100 + n)}`,
      },
      children: Array.from({ length: children }, (_, c) => ({
        firstName: FIRST[(n + c + 3) % FIRST.length],
        lastName: surname,
        school: c % 2 ? 'Dragon School' : 'St Ebbe’s Primary',
        schoolYear: String(3 + ((n + c) % 4)),
        allergies: ALLERGIES[(n + c) % ALLERGIES.length],
      })),
      comments: n % 3 === 0 ? 'Will be collected at 1pm' : '',
    });
    return { id: registration.id, email, status: registration.status };
  };
  const invoice = (ids: string[], discountAmount = 0) =>
    post<Invoiced>('/api/events/confirmInvoice', { registrationIds: ids, discountAmount }).then((a) => a.invoice);
  const pay = (id: string, amount: number) =>
    post('/api/family-invoices/payment', { invoiceId: id, date: today, amount });

  // Easter: booked while upcoming, invoiced and mostly paid, then dated back to the holiday just past.
  const easter = await schedule('Easter science lab', 30, 10, 35);
  const easterBookings = [await book(easter, 0, 2), await book(easter, 1), await book(easter, 2)];
  for (const [index, registration] of easterBookings.entries()) {
    const issued = await invoice([registration.id], index === 0 ? 10 : 0);
    if (index < 2) await pay(issued.id, issued.total);
  }
  // Half term: full (6 children), with two on the waiting list.
  const halfTerm = await schedule('Half-term art studio', 21, 6, 40);
  const art = [await book(halfTerm, 3, 2), await book(halfTerm, 4, 2), await book(halfTerm, 5, 2)];
  await book(halfTerm, 6);
  await book(halfTerm, 7);
  const partPaid = await invoice([(art[0] as { id: string }).id]);
  await pay(partPaid.id, Math.floor(partPaid.total / 2));
  // Summer: one moved in from the drama day, one deleted, the rest not invoiced yet.
  const summer = await schedule('Summer coding camp', 60, 12, 45);
  const drama = await schedule('Summer drama day', 67, 12, 45);
  const mover = await book(drama, 8);
  await post('/api/events/move', { fromEventId: drama, registrationId: mover.id, toEventId: summer });
  const leaving = await book(summer, 9);
  await post('/api/events/delete', { eventId: summer, registrationId: leaving.id });
  await book(summer, 10, 2);
  await book(drama, 11);
  await post('/api/events', {
    id: easter,
    description: 'Easter science lab',
    dateTime: `${addDays(today, -40)}T10:00`,
    durationMinutes: 180,
    price: 35,
    capacity: 10,
    location: 'St Giles Hall, Oxford',
  });
  return `4 workshops with ${booked} bookings (a full one with a waiting list; invoiced, paid, moved and deleted registrations)`;
}

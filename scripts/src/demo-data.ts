import { seedConsultations } from './demo/consultations';
import { getAs, inParallel, postAs } from './demo/demo-requests';
import { seedEngagements } from './demo/engagements';
import { seedInvoices } from './demo/invoices';
import { seedLessons } from './demo/lessons';
import { billMoneyModels, chooseMoneyModels } from './demo/money-models';
import { seedWorkshops } from './demo/workshops';
import type { RunningProduct } from './product';

const SURNAMES = [
  'Ahmed',
  'Baker',
  'Chen',
  'Davies',
  'Evans',
  'Fischer',
  'Green',
  'Hughes',
  'Iqbal',
  'Jones',
  'Khan',
  'Lewis',
  'Morgan',
  'Nowak',
  "O'Brien",
  'Patel',
  'Quinn',
  'Roberts',
  'Singh',
  'Taylor',
  'Usman',
  'Walker',
  'Young',
  'Zhang',
  'Murphy',
  'Kowalski',
  'Okafor',
  'Rossi',
  'Sato',
  'Thomas',
  'Wright',
  'Hall',
  'Price',
  'Clarke',
  'Bennett',
  'Fraser',
];
const PARENTS = [
  'Sarah',
  'James',
  'Priya',
  'Tom',
  'Aisha',
  'David',
  'Emma',
  'Mohammed',
  'Claire',
  'Daniel',
  'Helen',
  'Wei',
  'Rachel',
  'Mark',
  'Fatima',
  'Paul',
  'Laura',
  'Chris',
];
const CHILDREN = [
  'Oliver',
  'Amelia',
  'George',
  'Isla',
  'Noah',
  'Ava',
  'Leo',
  'Mia',
  'Arthur',
  'Ivy',
  'Oscar',
  'Freya',
  'Harry',
  'Lily',
  'Jack',
  'Sophia',
  'Theo',
  'Grace',
  'Zara',
  'Yusuf',
];
const STREETS = [
  'High Street',
  'Church Road',
  'Station Road',
  'Victoria Road',
  'Green Lane',
  'Manor Road',
  'Park Avenue',
  'Kingsway',
  'The Crescent',
  'Mill Lane',
];
const TOWNS = [
  ['Oxford', 'OX'],
  ['Cambridge', 'CB'],
  ['London', 'NW'],
  ['Reading', 'RG'],
  ['Guildford', 'GU'],
] as const;

/** A small deterministic generator, so every demo agency looks the same. */
function sequence(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  return {
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    int: (n: number) => Math.floor(next() * n),
  };
}

/**
 * Fills an empty store with a living agency, through the real command routes (as the admin),
 * so every event is one a person could have caused. Returns a summary, or null if the store
 * already has clients.
 */
export async function seedDemoData(product: RunningProduct, families = 36): Promise<string | null> {
  const admin = await product.command.accounts.firstAdmin();
  if (!admin) throw new Error('No admin user to seed the demo data as');
  const token = await product.command.signSession(admin);
  const post = postAs(product, token);
  const existing = await getAs(product, token)<{ clients: unknown[] }>('/api/clients?includeInactive=Y');
  if (existing.clients.length > 0) return null;

  // Every random value is drawn first, in the order the families were always drawn in, so the demo
  // agency stays the same however its commands are then interleaved.
  const random = sequence(20261122);
  const plans = Array.from({ length: families }, (_, family) => {
    const surname = SURNAMES[family % SURNAMES.length] as string;
    const [town, area] = random.pick(TOWNS);
    const postcode = `${area}${1 + random.int(9)} ${1 + random.int(9)}${String.fromCharCode(65 + random.int(26))}${String.fromCharCode(65 + random.int(26))}`;
    const address = [`${1 + random.int(120)} ${random.pick(STREETS)}`, town];
    const parent = random.pick(PARENTS);
    const email = `${parent.toLowerCase()}.${surname.toLowerCase().replace(/[^a-z]/g, '')}@example.com`;
    const mobile = `07${700 + random.int(299)} ${100000 + random.int(899999)}`;
    const contact = {
      firstName: parent,
      lastName: surname,
      address,
      postcode,
      email,
      phone: [{ type: 'Mobile', number: mobile }],
    };
    const second =
      family % 3 === 0
        ? {
            firstName: random.pick(PARENTS),
            lastName: surname,
            address,
            postcode,
            email: `family.${surname.toLowerCase().replace(/[^a-z]/g, '')}@example.org`,
            phone: [
              { type: 'Home', number: `01${800 + random.int(199)} ${100000 + random.int(899999)}` },
              { type: 'Work', number: `020 ${7000 + random.int(999)} ${1000 + random.int(8999)}` },
            ],
          }
        : null;
    const kids = Array.from({ length: 1 + random.int(3) }, () => {
      const year = 2008 + random.int(12);
      const dob = `${year}-${String(1 + random.int(12)).padStart(2, '0')}-${String(1 + random.int(28)).padStart(2, '0')}`;
      return { firstName: random.pick(CHILDREN), lastName: surname, dob };
    });
    return { contact, second, kids, inactive: family % 9 === 8 };
  });
  // The families are independent of each other: a few are entered at once, each in its own order.
  await inParallel(plans, async ({ contact, second, kids, inactive }) => {
    const { client } = await post<{ client: { id: string } }>('/api/clients/contact', contact);
    if (second) await post(`/api/clients/contact/${client.id}`, second);
    for (const kid of kids) await post(`/api/clients/child/${client.id}`, kid);
    if (inactive) await post(`/api/clients/active/${client.id}`, { id: client.id, active: false });
  });
  const children = plans.reduce((sum, plan) => sum + plan.kids.length, 0);
  const tutors = await seedTutors(post);
  const engagements = await seedEngagements(product, token);
  // Engagements of the other two money models for children without a tutor yet, before their lessons.
  const moneyModels = await chooseMoneyModels(product, token);
  // After the engagements: lessons are recorded against them (none yet means none recorded).
  const lessons = await seedLessons(product, token);
  // Billed before the tutors' invoices lock the months, so a lesson can still change after its family's invoice.
  const billed = moneyModels ? `; ${await billMoneyModels(product, token, moneyModels)}` : '';
  const invoices = await seedInvoices(product, token);
  const consultations = await seedConsultations(product, token);
  const workshops = await seedWorkshops(product, token);
  return `${families} families with ${children} children; ${tutors}; ${engagements}; ${lessons}; ${invoices}; ${consultations}; ${workshops}${billed}`;
}

const TUTORS: { first: string; last: string; town: string; terminated?: boolean; partner?: boolean }[] = [
  { first: 'Eleanor', last: 'Marsh', town: 'Oxford', partner: true },
  { first: 'Rahul', last: 'Mehta', town: 'Cambridge' },
  { first: 'Sophie', last: 'Turner', town: 'London' },
  { first: 'Ben', last: 'Adeyemi', town: 'Reading' },
  { first: 'Hannah', last: 'Kowalczyk', town: 'Oxford', terminated: true },
  { first: 'Lucas', last: 'Ferreira', town: 'Guildford' },
  { first: 'Grace', last: 'Ng', town: 'London', terminated: true },
  { first: 'Samuel', last: 'Marsh', town: 'Oxford' },
];

export const DEMO_PARTNER = { username: 'partner', password: 'demo-partner-password' };

/** Tutors through the real routes: suggestion, save, two terminated, one with a partner login. */
async function seedTutors(post: (url: string, payload: Record<string, unknown>) => Promise<unknown>) {
  // Each tutor's own commands in order; the tutors a few at a time (their names and prefixes differ).
  await inParallel(TUTORS, async (entry, n) => {
    const suggestion = (await post('/api/tutors/suggest', { firstName: entry.first, lastName: entry.last })) as {
      username: string;
      prefix: string;
    };
    const { tutor } = (await post('/api/tutors/contact', {
      contact: {
        firstName: entry.first,
        lastName: entry.last,
        address: [`${10 + n * 7} ${STREETS[n % STREETS.length]}`, entry.town],
        postcode: `OX${n + 1} ${n + 2}TB`,
        email: `${entry.first}.${entry.last}@tutors.example.com`.toLowerCase(),
        phone: [{ type: 'Mobile', number: `07700 90${String(1000 + n * 137).slice(0, 4)}` }],
      },
      tutor: { username: suggestion.username, invoicePrefix: suggestion.prefix, startDate: `202${n % 5}-09-01` },
    })) as { tutor: { id: string } };
    if (entry.terminated) await post(`/api/tutors/active/${tutor.id}`, { id: tutor.id, active: false });
    if (entry.partner) {
      await post('/api/users', {
        ...DEMO_PARTNER,
        role: 'partner',
        tutorId: tutor.id,
        name: `${entry.first} ${entry.last}`,
      });
    }
  });
  const n = TUTORS.length;
  return `${n} tutors (2 terminated; partner login ${DEMO_PARTNER.username} / ${DEMO_PARTNER.password})`;
}

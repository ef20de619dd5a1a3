import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';
import { seedWorkshops } from './workshops';

type Event = {
  description: string;
  dateTime: string;
  count: number;
  waitlisted: number;
  unInvoiced: number;
  unpaid: number;
};

describe('demo workshops', () => {
  let product: TestProduct;
  let token: string;

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('schedules past and upcoming workshops with registrations in every state', async () => {
    await product.api(token).post('/api/clients/contact', {
      firstName: 'Parent',
      lastName: 'Demo',
      address: ['1 High Street'],
      postcode: 'OX1 1AA',
      email: 'parent.demo@example.com',
      phone: [{ type: 'Mobile', number: '07700 900000' }],
    });
    expect(await seedWorkshops(product, token)).toMatch(/^4 workshops with 12 bookings/);
    const { events } = (await product.api(token).get('/api/events?includePast=Y')) as { events: Event[] };
    const byName = new Map(events.map((event) => [event.description, event]));
    expect(events[0]?.description).toBe('Easter science lab');
    expect(byName.get('Easter science lab')).toMatchObject({ count: 3, unInvoiced: 0, unpaid: 1 });
    expect(byName.get('Half-term art studio')).toMatchObject({ count: 3, waitlisted: 2, unpaid: 1 });
    expect(byName.get('Summer coding camp')).toMatchObject({ count: 2, unInvoiced: 2 });
    const upcoming = (await product.api(token).get('/api/events')) as { events: Event[] };
    expect(upcoming.events.map((event) => event.description)).not.toContain('Easter science lab');
  });
});

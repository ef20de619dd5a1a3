import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoData } from '../demo-data';
import { startTestProduct, TEST_ADMIN, type TestProduct } from '../testing/test-product';

type Student = { engagementId: string; name: string; endDate: string | null };

describe('demo engagements', () => {
  let product: TestProduct;
  let token: string;
  const get = (url: string) => product.api(token).get(url);

  beforeAll(async () => {
    product = await startTestProduct();
    token = await product.login(TEST_ADMIN.username, TEST_ADMIN.password);
  }, 120_000);
  afterAll(() => product?.dispose());

  it('gives every active demo tutor students, some with rate history and a few ended, before the lessons', async () => {
    const summary = await seedDemoData(product, 8);
    expect(summary).toMatch(/\d+ engagements \(\d+ with history, [1-9]\d* ended\)/);
    expect(summary).not.toMatch(/; 0 lessons/);

    const { tutors } = await get('/api/tutors?includeInactive=Y');
    let withHistory = 0;
    let former = 0;
    for (const tutor of tutors as { id: string; active: boolean }[]) {
      const detail = (await get(`/api/tutors/${tutor.id}`)).tutor;
      const current = detail.currentStudents as Student[];
      if (!tutor.active) {
        expect(current).toEqual([]);
        continue;
      }
      expect(current.length).toBeGreaterThan(0);
      former += (detail.formerStudents as Student[]).length;
      for (const student of current) {
        const { engagement } = await get(`/api/tutors/engagement/${tutor.id}/${student.engagementId}`);
        if (engagement.history.length > 1) withHistory++;
        // The newest period is the latest and runs on; each older one ends the day before the next begins.
        expect(engagement.history[0]).toMatchObject({ latest: true, endDate: null });
      }
    }
    expect(withHistory).toBeGreaterThan(2);
    expect(former).toBeGreaterThan(0);
  });
});

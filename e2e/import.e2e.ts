import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloaded, expectAccessible, launchChromium, screenshot } from './support/chromium';
import { logInAsAdmin } from './support/session';

describe('Settings → Import', () => {
  let browser: Browser;
  let admin: Page;
  // The product is shared by every browser test: references and names of this run only.
  const stamp = Date.now() % 100000;

  beforeAll(async () => {
    browser = await launchChromium();
    admin = await logInAsAdmin(browser);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('downloads a template, checks a file (nothing written), then imports it with a summary', async () => {
    await admin.goto('/clients');
    await admin.getByRole('link', { name: 'Settings' }).click();
    await admin.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Import' }).click();
    await admin.waitForURL('**/settings/import');

    const [download] = await Promise.all([
      admin.waitForEvent('download'),
      admin.getByRole('link', { name: 'Download the families template' }).click(),
    ]);
    expect((await downloaded(download)).toString('utf8')).toContain('"reference","first_name","last_name"');

    const file = [
      'reference;first_name;last_name;email;phone;address_1;postcode;child_1_first_name;child_1_dob',
      `W${stamp}a;Wren;Import${stamp};wren${stamp}@example.com;07700 900001;1 Road;OX1 1AA;Ivy;01/02/2013`,
      `W${stamp}b;Wade;Import${stamp};;07700 900002;2 Road;OX1 1AA;;`,
    ].join('\n');
    await admin.getByLabel('CSV file', { exact: true }).setInputFiles({
      name: 'families.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(`\uFEFF${file}`, 'utf8'),
    });
    await admin.getByRole('button', { name: 'Check file' }).click();
    const checked = admin.getByRole('region', { name: /would do/ });
    await expect
      .poll(() => checked.getByRole('status').textContent())
      .toBe('2 rows: 1 would be created, 0 would be updated, 0 unchanged, 1 refused.');
    const rows = checked.getByRole('row');
    await expect.poll(() => rows.nth(1).textContent()).toBe(`2W${stamp}aWould create`);
    expect(await rows.nth(2).textContent()).toMatch(/^3.*Refused.*Email is required/);
    await expectAccessible(admin);
    await screenshot(admin, 'import-checked');

    // The dry run wrote nothing: no such family in the list yet.
    const families = async () =>
      JSON.stringify(await (await admin.request.get(`/api/clients?q=Import${stamp}&includeInactive=Y`)).json());
    expect(await families()).not.toContain('Wren');

    await admin.getByRole('button', { name: 'Import 1 row' }).click();
    const done = admin.getByRole('region', { name: 'Imported' });
    await expect
      .poll(() => done.getByRole('status').textContent())
      .toBe('2 rows: 1 created, 0 updated, 0 unchanged, 1 refused.');
    await expectAccessible(admin);
    expect(await families()).toContain('Wren');
  });
});

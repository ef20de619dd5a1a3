import { describe, expect, it } from 'vitest';
import { DomainError } from '../shared/decider';
import { agencyModelDecider, agencyTermsOn, DEFAULT_TERMS, engagementModelDecider, termsOn } from './money-model';

const admin = { role: 'admin' as const };
const chooseAgency = (
  state: Parameters<typeof agencyModelDecider.decide>[1],
  from: string,
  model = 'agency-sells-tuition' as const,
  vatRateBp = 2000,
) =>
  agencyModelDecider.decide(
    {
      type: 'ChooseAgencyMoneyModel',
      choice: { model, from, vatRateBp, payAfterFamilyPays: false },
      today: '2026-03-14',
      actor: admin,
    },
    state,
    new Date(),
  );

describe('money models', () => {
  it('apply the spec’s model until the agency chooses, then its choice from the first of the month on', () => {
    const none = agencyModelDecider.initialState();
    expect(agencyTermsOn(none, '2026-03-31')).toEqual(DEFAULT_TERMS);
    const [chosen] = chooseAgency(none, '2026-04-01');
    const state = agencyModelDecider.evolve(none, chosen as never);
    expect(agencyTermsOn(state, '2026-03-31').model).toBe('tutor-pays-commission');
    expect(agencyTermsOn(state, '2026-04-01')).toEqual({
      model: 'agency-sells-tuition',
      vatRateBp: 2000,
      payAfterFamilyPays: false,
    });
  });

  it('refuse a month already begun before today’s, a mid-month start and a VAT rate other than 0 or 20 %', () => {
    const none = agencyModelDecider.initialState();
    expect(() => chooseAgency(none, '2026-02-01')).toThrow(DomainError);
    expect(() => chooseAgency(none, '2026-04-15')).toThrow(/first day of a month/);
    expect(() => chooseAgency(none, '2026-04-01', 'agency-sells-tuition', 1750)).toThrow(/VAT/);
    expect(chooseAgency(none, '2026-03-01')).toHaveLength(1);
  });

  it('let an engagement have its own model, and go back to the agency’s', () => {
    const agency = agencyModelDecider.evolve(
      agencyModelDecider.initialState(),
      chooseAgency(agencyModelDecider.initialState(), '2026-04-01')[0] as never,
    );
    let engagement = engagementModelDecider.initialState();
    for (const [model, from] of [
      ['introduction', '2026-05-01'],
      [null, '2026-07-01'],
    ] as const) {
      const events = engagementModelDecider.decide(
        {
          type: 'ChooseEngagementMoneyModel',
          engagementId: 'e1',
          choice: { model, from },
          today: '2026-03-14',
          actor: admin,
        },
        engagement,
        new Date(),
      );
      engagement = events.reduce((state, event) => engagementModelDecider.evolve(state, event), engagement);
    }
    expect(termsOn(agency, engagement, '2026-04-30').model).toBe('agency-sells-tuition');
    expect(termsOn(agency, engagement, '2026-05-01')).toEqual({
      model: 'introduction',
      vatRateBp: 2000,
      payAfterFamilyPays: false,
    });
    expect(termsOn(agency, engagement, '2026-07-01').model).toBe('agency-sells-tuition');
  });

  it('is an admin’s choice only', () => {
    expect(() =>
      agencyModelDecider.decide(
        {
          type: 'ChooseAgencyMoneyModel',
          choice: { ...DEFAULT_TERMS, from: '2026-04-01' },
          today: '2026-03-14',
          actor: { role: 'partner' },
        },
        agencyModelDecider.initialState(),
        new Date(),
      ),
    ).toThrow(/Only an admin/);
  });
});

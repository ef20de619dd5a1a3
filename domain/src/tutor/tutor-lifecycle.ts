/**
 * What a tutor's lifecycle allows, in one place: the decider enforces it on the server and the
 * UI's tutor machine offers the same actions. Both are tested on `lifecycleCases`.
 */
export type TutorAccount = 'notActivated' | 'activationSent' | 'activated';

export type TutorLifecycleView = { active: boolean; account: TutorAccount; currentStudents: number };

export type TutorAction = 'terminate' | 'reactivate' | 'sendActivation' | 'grantPartner';

export function tutorActionAllowed(view: TutorLifecycleView, action: TutorAction): boolean {
  switch (action) {
    case 'terminate':
      return view.active && view.currentStudents === 0;
    case 'reactivate':
      return !view.active;
    case 'sendActivation':
      return view.active && view.account === 'notActivated';
    case 'grantPartner':
      return view.account === 'activated';
    default: {
      const _never: never = action;
      return _never;
    }
  }
}

export type LifecycleCase = TutorLifecycleView & { allowed: TutorAction[] };

const accounts: TutorAccount[] = ['notActivated', 'activationSent', 'activated'];

/** Every combination of active × account × (with or without current students), with the actions on offer. */
export const lifecycleCases: LifecycleCase[] = [
  // active, no current students
  { active: true, account: 'notActivated', currentStudents: 0, allowed: ['terminate', 'sendActivation'] },
  { active: true, account: 'activationSent', currentStudents: 0, allowed: ['terminate'] },
  { active: true, account: 'activated', currentStudents: 0, allowed: ['terminate', 'grantPartner'] },
  // active with current students: never terminated
  { active: true, account: 'notActivated', currentStudents: 2, allowed: ['sendActivation'] },
  { active: true, account: 'activationSent', currentStudents: 1, allowed: [] },
  { active: true, account: 'activated', currentStudents: 3, allowed: ['grantPartner'] },
  // inactive: only reactivation (and the partner role of an existing account)
  ...accounts.map((account) => ({
    active: false,
    account,
    currentStudents: 0,
    allowed: (account === 'activated' ? ['reactivate', 'grantPartner'] : ['reactivate']) as TutorAction[],
  })),
];

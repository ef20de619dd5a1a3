import type { Selection } from '../lib/global-selection';
import { FilterItem, MonthFilter } from './month-filter';
import { Select } from './select';

/**
 * The global selection's controls (spec §3): month arrows, year and month, and for staff a tutor
 * dropdown with an All tutors option. `tutors` is absent where the screen has no tutor choice.
 */
export function SelectionFilter({
  id,
  selection,
  onSelect,
  tutors,
}: {
  /** Prefix of the controls' ids, unique on the page. */
  id: string;
  selection: Selection;
  onSelect: (next: Partial<Selection>) => void;
  tutors?: { id: string; name: string }[];
}) {
  return (
    <MonthFilter id={id} value={selection} onChange={onSelect}>
      {tutors ? (
        <FilterItem wide>
          <Select
            id={`${id}-tutor`}
            label="Tutor"
            value={selection.tutorId}
            options={[
              { value: '', label: 'All tutors' },
              ...tutors.map((tutor) => ({ value: tutor.id, label: tutor.name })),
            ]}
            onChange={(event) => onSelect({ tutorId: event.target.value })}
          />
        </FilterItem>
      ) : null}
    </MonthFilter>
  );
}

import styled from '@emotion/styled';
import { type KeyboardEvent, useEffect, useId, useMemo, useState } from 'react';
import { Button } from '../../../components/button';
import { controlStyles, errorProps, Field } from '../../../components/field';
import { formatDate } from '../../../lib/format';
import { useLoader } from '../../../lib/use-loader';
import { fetchStudents, type Student } from '../api';
import { fullName, matchStudents } from '../student-search';

/** The spec's typeahead debounce. */
export const TYPEAHEAD_DEBOUNCE_MS = 200;

const Wrap = styled.div({ position: 'relative', maxWidth: '28rem' });

const Input = styled('input', { shouldForwardProp: (prop) => prop !== 'invalid' })<{ invalid?: boolean }>(
  controlStyles,
);

const List = styled.ul(({ theme }) => ({
  position: 'absolute',
  zIndex: 10,
  left: 0,
  right: 0,
  margin: '0.25rem 0 0',
  padding: '0.25rem 0',
  listStyle: 'none',
  background: theme.colors.surface,
  border: `1px solid ${theme.colors.border}`,
  borderRadius: theme.radius,
  boxShadow: '0 6px 16px rgba(16, 42, 67, 0.15)',
  maxHeight: '16rem',
  overflowY: 'auto',
}));

const Item = styled.li<{ active: boolean }>(({ theme, active }) => ({
  padding: '0.5rem 0.75rem',
  cursor: 'pointer',
  background: active ? theme.colors.rowHover : undefined,
  '& small': { color: theme.colors.muted, marginLeft: '0.5rem' },
}));

const Hint = styled.p(({ theme }) => ({ color: theme.colors.muted, margin: '0.25rem 0 0', fontSize: '0.9rem' }));

const loadStudents = (_: 'all', signal: AbortSignal) => fetchStudents(signal);

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * Find Student: a combobox over every child (GET /api/clients/all/children). What is typed is
 * matched literally (regex-safe) once typing pauses for 200 ms.
 */
export function StudentTypeahead({
  id,
  label,
  error,
  selected,
  onSelect,
  onBlur,
}: {
  id: string;
  label: string;
  error?: string;
  selected: Student | null;
  onSelect: (student: Student | null) => void;
  onBlur?: () => void;
}) {
  const { state, retry } = useLoader(loadStudents, 'all');
  const [text, setText] = useState(selected ? fullName(selected) : '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const typed = useDebounced(text, TYPEAHEAD_DEBOUNCE_MS);
  const listId = useId();
  const students = state.status === 'loaded' ? state.data : [];
  const matches = useMemo(() => matchStudents(students, typed), [students, typed]);
  const showList = open && matches.length > 0 && !(selected && fullName(selected) === text);

  const choose = (student: Student) => {
    onSelect(student);
    setText(fullName(student));
    setOpen(false);
  };

  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      setOpen(true);
      setActive((index) => Math.min(index + 1, matches.length - 1));
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      setActive((index) => Math.max(index - 1, 0));
    } else if (event.key === 'Enter' && showList) {
      event.preventDefault();
      const student = matches[active];
      if (student) choose(student);
    } else if (event.key === 'Escape') {
      setOpen(false);
    }
  };

  const optionId = (index: number) => `${listId}-option-${index}`;
  const noMatch = open && typed.trim() !== '' && typed === text && matches.length === 0 && state.status === 'loaded';

  return (
    <Field id={id} label={label} required error={error}>
      <Wrap>
        <Input
          id={id}
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={showList}
          aria-controls={listId}
          aria-activedescendant={showList ? optionId(active) : undefined}
          aria-required
          invalid={Boolean(error)}
          {...errorProps(id, error)}
          value={text}
          placeholder="Type a student's name"
          onChange={(event) => {
            setText(event.target.value);
            setActive(0);
            setOpen(true);
            if (selected) onSelect(null);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => {
            setOpen(false);
            onBlur?.();
          }}
        />
        <List id={listId} role="listbox" aria-label="Matching students" hidden={!showList}>
          {showList
            ? matches.map((student, index) => (
                <Item
                  key={student.id}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === active}
                  active={index === active}
                  // Keeps the focus in the input, so the blur does not close the list first.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => choose(student)}
                >
                  {fullName(student)}
                  {student.dob ? <small>born {formatDate(student.dob)}</small> : null}
                </Item>
              ))
            : null}
        </List>
      </Wrap>
      <div aria-live="polite">
        {state.status === 'loading' ? <Hint>Loading students…</Hint> : null}
        {noMatch ? <Hint>No student matches "{typed.trim()}".</Hint> : null}
      </div>
      {state.status === 'failed' ? (
        <Hint role="alert">
          The students could not be loaded: {state.error.message}{' '}
          <Button type="button" variant="secondary" onClick={retry}>
            Retry
          </Button>
        </Hint>
      ) : null}
    </Field>
  );
}

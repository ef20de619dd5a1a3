import styled from '@emotion/styled';
import { type KeyboardEvent, type ReactNode, useEffect, useId, useMemo, useState } from 'react';
import type { LoaderState } from '../lib/loader';
import { Button } from './button';
import { controlStyles, errorProps, Field } from './field';

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

function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * A combobox over a loaded list: what is typed is matched (`match`) once typing pauses for the
 * spec's 200 ms; arrows move, Enter chooses, Escape closes. `noun` names the items in the hints
 * ("students", "clients").
 */
export function Typeahead<T extends { id: string }>({
  id,
  label,
  noun,
  placeholder,
  error,
  state,
  retry,
  match,
  textOf,
  noteOf,
  selected,
  onSelect,
  onBlur,
  required = true,
}: {
  id: string;
  label: string;
  noun: string;
  placeholder: string;
  error?: string;
  state: LoaderState<T[]>;
  retry: () => void;
  match: (items: readonly T[], typed: string) => T[];
  textOf: (item: T) => string;
  noteOf?: (item: T) => ReactNode;
  selected: T | null;
  onSelect: (item: T | null) => void;
  onBlur?: () => void;
  /** A form's choice is required; a list's filter is not (blank: everyone). */
  required?: boolean;
}) {
  const [text, setText] = useState(selected ? textOf(selected) : '');
  // A choice made from outside (named in the address, shown once the items are in) shows its
  // name; clearing it (the user typing) leaves what was typed.
  const [shownId, setShownId] = useState(selected?.id);
  if (selected?.id !== shownId) {
    setShownId(selected?.id);
    if (selected) setText(textOf(selected));
  }
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const typed = useDebounced(text, TYPEAHEAD_DEBOUNCE_MS);
  const listId = useId();
  const items = state.status === 'loaded' ? state.data : [];
  const matches = useMemo(() => match(items, typed), [match, items, typed]);
  const showList = open && matches.length > 0 && !(selected && textOf(selected) === text);

  const choose = (item: T) => {
    onSelect(item);
    setText(textOf(item));
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
      const item = matches[active];
      if (item) choose(item);
    } else if (event.key === 'Escape') {
      setOpen(false);
    }
  };

  const optionId = (index: number) => `${listId}-option-${index}`;
  const noMatch = open && typed.trim() !== '' && typed === text && matches.length === 0 && state.status === 'loaded';

  return (
    <Field id={id} label={label} required={required} error={error}>
      <Wrap>
        <Input
          id={id}
          role="combobox"
          autoComplete="off"
          aria-autocomplete="list"
          aria-expanded={showList}
          aria-controls={listId}
          aria-activedescendant={showList ? optionId(active) : undefined}
          aria-required={required}
          invalid={Boolean(error)}
          {...errorProps(id, error)}
          value={text}
          placeholder={placeholder}
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
        <List id={listId} role="listbox" aria-label={`Matching ${noun}`} hidden={!showList}>
          {showList
            ? matches.map((item, index) => (
                <Item
                  key={item.id}
                  id={optionId(index)}
                  role="option"
                  aria-selected={index === active}
                  active={index === active}
                  // Keeps the focus in the input, so the blur does not close the list first.
                  onMouseDown={(event) => event.preventDefault()}
                  onClick={() => choose(item)}
                >
                  {textOf(item)}
                  {noteOf?.(item)}
                </Item>
              ))
            : null}
        </List>
      </Wrap>
      <div aria-live="polite">
        {state.status === 'loading' ? <Hint>Loading {noun}…</Hint> : null}
        {noMatch ? (
          <Hint>
            No {noun.replace(/s$/, '')} matches "{typed.trim()}".
          </Hint>
        ) : null}
      </div>
      {state.status === 'failed' ? (
        <Hint role="alert">
          The {noun} could not be loaded: {state.error.message}{' '}
          <Button type="button" variant="secondary" onClick={retry}>
            Retry
          </Button>
        </Hint>
      ) : null}
    </Field>
  );
}

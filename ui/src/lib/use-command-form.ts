import { type BaseSyntheticEvent, useEffect, useRef, useState } from 'react';
import { type DefaultValues, type FieldErrors, type FieldValues, type Path, set, useForm } from 'react-hook-form';
import { useCommandIds } from './command-id';
import { errorMessage, HttpError } from './http';

/** The paths of the fields an errors object of react-hook-form holds (`address.0`, `phone.1.number`). */
export function errorPaths(errors: object, prefix = ''): string[] {
  return Object.entries(errors).flatMap(([key, value]) => {
    if (!value || typeof value !== 'object' || key === 'ref') return [];
    const path = prefix ? `${prefix}.${key}` : key;
    return 'message' in value || 'type' in value ? [path] : errorPaths(value, path);
  });
}

/** Of a form's fields (their names, in the order the form shows them), the first one in error. */
export const firstInvalidField = (names: readonly string[], errors: FieldErrors) => {
  const invalid = new Set(errorPaths(errors));
  return names.find((name) => invalid.has(name));
};

/**
 * Focuses the first field in error in the order the form shows its fields, not the order they
 * were registered in (Last Name registers before First Name, for its suggestion).
 */
function focusFirstInvalid(form: HTMLFormElement | null, errors: FieldErrors) {
  if (!form) return;
  const fields = Array.from(form.elements).filter(
    (element): element is HTMLInputElement => 'name' in element && typeof element.name === 'string' && !!element.name,
  );
  const name = firstInvalidField(
    fields.map((field) => field.name),
    errors,
  );
  fields.find((field) => field.name === name)?.focus();
}

/**
 * A form whose Save sends one command. It validates when a field is left, reuses the command
 * id when the same values are saved again after a network failure (other values are another
 * action, with an id of their own), shows the server's refusal, and puts the server's field
 * messages on the matching inputs (`fieldName` translates or drops a name). After a refused save,
 * by the form's rules or the server's, the first field in error has the focus; after a save,
 * `saved` is true until the values change (a page that stays says "Saved").
 */
export function useCommandForm<V extends FieldValues>(options: {
  defaultValues: DefaultValues<V>;
  save: (values: V, commandId: string) => Promise<void>;
  fieldName?: (serverField: string) => Path<V> | undefined;
}) {
  const form = useForm<V>({ mode: 'onTouched', defaultValues: options.defaultValues, shouldFocusError: false });
  const commandIds = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const formElement = useRef<HTMLFormElement | null>(null);
  useEffect(() => {
    const subscription = form.watch(() => setSaved(false));
    return () => subscription.unsubscribe();
  }, [form]);
  const submit = form.handleSubmit(
    async (values) => {
      setFailure(null);
      setSaved(false);
      const action = JSON.stringify(values);
      try {
        await options.save(values, commandIds.idFor(action));
        commandIds.done(action);
        setSaved(true);
      } catch (error) {
        commandIds.done(action, error);
        setFailure(errorMessage(error));
        if (error instanceof HttpError && error.fields) {
          const refused: FieldErrors = {};
          for (const [field, message] of Object.entries(error.fields)) {
            const name = options.fieldName ? options.fieldName(field) : (field as Path<V>);
            if (!name) continue;
            form.setError(name, { type: 'server', message });
            set(refused, name, { type: 'server', message });
          }
          // Not form.formState.errors: that is the last drawn state, which the errors just set are not in yet.
          focusFirstInvalid(formElement.current, refused);
        }
      }
    },
    (errors) => focusFirstInvalid(formElement.current, errors),
  );
  const onSubmit = (event?: BaseSyntheticEvent) => {
    // The form itself, while the event is still being dispatched (React clears it afterwards).
    if (event?.currentTarget instanceof HTMLFormElement) formElement.current = event.currentTarget;
    return submit(event);
  };
  return { form, onSubmit, failure, saved };
}

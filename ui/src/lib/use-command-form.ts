import { useState } from 'react';
import { type DefaultValues, type FieldValues, type Path, useForm } from 'react-hook-form';
import { useCommandIds } from './command-id';
import { errorMessage, HttpError } from './http';

/**
 * A form whose Save sends one command. It validates when a field is left, reuses the command
 * id when the same values are saved again after a network failure (other values are another
 * action, with an id of their own), shows the server's refusal, and puts the server's field
 * messages on the matching inputs (`fieldName` translates or drops a name).
 */
export function useCommandForm<V extends FieldValues>(options: {
  defaultValues: DefaultValues<V>;
  save: (values: V, commandId: string) => Promise<void>;
  fieldName?: (serverField: string) => Path<V> | undefined;
}) {
  const form = useForm<V>({ mode: 'onTouched', defaultValues: options.defaultValues });
  const commandIds = useCommandIds();
  const [failure, setFailure] = useState<string | null>(null);
  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null);
    const action = JSON.stringify(values);
    try {
      await options.save(values, commandIds.idFor(action));
      commandIds.done(action);
    } catch (error) {
      commandIds.done(action, error);
      setFailure(errorMessage(error));
      if (error instanceof HttpError && error.fields) {
        for (const [field, message] of Object.entries(error.fields)) {
          const name = options.fieldName ? options.fieldName(field) : (field as Path<V>);
          if (name) form.setError(name, { type: 'server', message });
        }
      }
    }
  });
  return { form, onSubmit, failure };
}

import { useState } from 'react';
import { type DefaultValues, type FieldValues, type Path, useForm } from 'react-hook-form';
import { useCommandId } from './command-id';
import { errorMessage, HttpError } from './http';

/**
 * A form whose Save sends one command. It validates when a field is left, reuses the command
 * id when a save is retried after a network failure, shows the server's refusal, and puts the
 * server's field messages on the matching inputs (`fieldName` translates or drops a name).
 */
export function useCommandForm<V extends FieldValues>(options: {
  defaultValues: DefaultValues<V>;
  save: (values: V, commandId: string) => Promise<void>;
  fieldName?: (serverField: string) => Path<V> | undefined;
}) {
  const form = useForm<V>({ mode: 'onTouched', defaultValues: options.defaultValues });
  const commandId = useCommandId();
  const [failure, setFailure] = useState<string | null>(null);
  const onSubmit = form.handleSubmit(async (values) => {
    setFailure(null);
    try {
      await options.save(values, commandId.current());
      commandId.settle();
    } catch (error) {
      commandId.settle(error);
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

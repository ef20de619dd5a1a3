/** A react-hook-form rule: the field must hold more than spaces, else this message. */
export const required = (message: string) => (value: string) => value.trim() !== '' || message;

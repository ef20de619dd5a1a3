/** The mail reactor's name (its checkpoint): a command that answers "e-mailed" waits for it. */
export const MAIL_REACTOR = 'mail';

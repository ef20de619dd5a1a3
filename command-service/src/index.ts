export { type CommandAppOptions, commandTree } from './app';
export { DEFAULT_LOGIN_LIMITS, type LoginLimits, LoginThrottle } from './auth/login-throttle';
export { argon2Stats } from './auth/password-hashing';
export { DEFAULT_RESET_LIMITS, type ResetLimits } from './auth/reset-throttle';
export { MAIL_REACTOR } from './mail/mail-reactor-name';
export { createMailer, type Mailer, type MailMessage } from './mail/mailer';
export type { Views } from './pipeline/views';

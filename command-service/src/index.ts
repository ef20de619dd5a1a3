export { buildCommandApp } from './app';
export { LoginThrottle } from './auth/login-throttle';
export { DEFAULT_RESET_LIMITS, type ResetLimits } from './auth/reset-throttle';
export { createMailer, type Mailer, type MailMessage } from './mail/mailer';

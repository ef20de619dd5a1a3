export { buildCommandApp } from './app';
export { LoginThrottle } from './auth/login-throttle';

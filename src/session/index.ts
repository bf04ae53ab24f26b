export { openSession, type ServiceSession, type SessionOptions } from './open-session.ts';

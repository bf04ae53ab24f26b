/**
 * The sandbox's accounts. The main user's credentials are fixed, documented values so scripts
 * and the demo can use them without reading anything (DECISIONS.md, "Accounts").
 */

export interface SandboxUser {
  id: number;
  email: string;
  password: string;
  apiKey: string;
  companyId: number;
  name: string;
}

export const MAIN_USER_ID = 5001;
export const COLLEAGUE_USER_ID = 5002;
export const OTHER_COMPANY_USER_ID = 6001;

export const USERS: readonly SandboxUser[] = [
  { id: MAIN_USER_ID, email: 'demo@buildsync.test', password: 'sandbox-password', apiKey: 'sandbox-api-key', companyId: 1, name: 'Dana Whitfield' },
  { id: COLLEAGUE_USER_ID, email: 'estimator@buildsync.test', password: 'estimator-password', apiKey: 'estimator-api-key', companyId: 1, name: 'Luis Ortega' },
  { id: OTHER_COMPANY_USER_ID, email: 'pm@northgate.test', password: 'northgate-password', apiKey: 'northgate-api-key', companyId: 2, name: 'Priya Raman' },
];

/** E-mail addresses compare case-insensitively, as account names usually do. */
export function findUser(email: string): SandboxUser | undefined {
  const wanted = email.toLowerCase();
  return USERS.find((u) => u.email === wanted);
}

export function userById(id: number): SandboxUser | undefined {
  return USERS.find((u) => u.id === id);
}

export { startSandbox } from './server.ts';
export { parseSandboxLimits } from './parse-limits.ts';
export { DEFAULT_LIMITS } from './options.ts';
export type {
  RequestLogEntry, Sandbox, SandboxCredentials, SandboxFaults, SandboxOptions, StoredBill, StoredEstimate, WindowName,
} from './types.ts';

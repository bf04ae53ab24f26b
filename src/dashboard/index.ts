export { startDashboard } from './server.ts';
export { DASHBOARD_DEFAULTS, type Dashboard, type DashboardOptions } from './dashboard-options.ts';
export type { BudgetReport, AccountBudget, WindowRow, ScheduleRuns, ExportRun } from './budget-data.ts';
export type { DashboardAuth } from './basic-auth.ts';

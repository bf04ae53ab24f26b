/**
 * The import page's script (README, The import page), bundled by bin/build.mjs into the page
 * (src/dashboard/page-scripts.ts): plain DOM, no framework. It holds no rule of its own (see
 * import-state.ts): every choice goes to the dashboard as the page state.
 */
import { wireCheck } from './check-result.ts';
import { holdMappingDownload } from './import-state.ts';
import { follow, wireSend } from './progress.ts';
import { kindChanged, wireReading } from './reading.ts';
import { wireRowsTable } from './rows-table.ts';
import { wireVendorList } from './vendors.ts';

holdMappingDownload();
wireReading();
wireVendorList();
wireCheck();
wireRowsTable();
wireSend();
kindChanged();
const id = new URLSearchParams(location.search).get('id');
if (id) follow(id);

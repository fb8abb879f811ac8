import type { Generated } from 'kysely';
import type { Int8 } from '../schema';

// 0009_admin: operators' notes that close code incidents.
declare module '../schema' {
  interface Database {
    code_incident_resolutions: CodeIncidentResolutionsTable;
  }
}

export interface CodeIncidentResolutionsTable {
  incident_id: Int8;
  admin_id: number;
  note: string;
  resolved_at: Generated<Date>;
}

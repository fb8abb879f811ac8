import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { createDb } from '../src/db/client';
import { migrate } from '../src/db/migrate';
import { startPgCluster } from './pg-cluster';

export const TEMPLATE_DB = 'adena_template';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
  }
}

/** One real PostgreSQL for the whole run, with a migrated template each test file clones. */
export default async function setup(project: TestProject) {
  const cluster = await startPgCluster();
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${TEMPLATE_DB}`);
  await admin.end();
  const db = await createDb({ databaseUrl: cluster.url.replace(/\/postgres$/, `/${TEMPLATE_DB}`), dataDir: '' });
  await migrate(db.kysely);
  await db.close();
  project.provide('pgAdminUrl', cluster.url);
  return () => cluster.stop();
}

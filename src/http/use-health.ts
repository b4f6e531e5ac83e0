import type { Plugin } from 'graphql-yoga';
import type { Database } from '../db/database.ts';
import { problemResponse } from './problem.ts';

/**
 * `/health/live`: the process answers. `/health/ready`: it can reach its database and is not shutting
 * down, so a load balancer stops sending it traffic while it drains.
 */
export function useHealth(db: Database, isDraining: () => boolean): Plugin {
  return {
    async onRequest({ url, request, endResponse }) {
      if (url.pathname !== '/health/live' && url.pathname !== '/health/ready') return;
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        endResponse(
          problemResponse('methodNotAllowed', `${request.method} is not supported here; use GET`, [], {
            Allow: 'GET, HEAD',
          }),
        );
        return;
      }
      if (url.pathname === '/health/live') {
        endResponse(Response.json({ status: 'ok' }));
        return;
      }
      if (isDraining()) {
        endResponse(problemResponse('unavailable', 'The service is shutting down'));
        return;
      }
      try {
        await db.fork().execute('select 1');
        endResponse(Response.json({ status: 'ok' }));
      } catch {
        endResponse(problemResponse('unavailable', 'The database is unreachable'));
      }
    },
  };
}

/**
 * What the service returns for a query, read with the API client page by page: the independent
 * answer tests compare the cache's memberships and filters with.
 */
import { createApiClient, type ContactListParams, type OrderListParams } from '../../electron/main/api/client.ts';
import { SAMPLE_ACCESS_TOKEN, SAMPLE_REFRESH_TOKEN } from '../../electron/main/sampleApi/server.ts';
import type { Resource } from '../../shared/serviceRecords.ts';

/**
 * The ids the service at `baseUrl` returns for `query` (§4.1 / §4.2 parameters by the spec's
 * names), in its order, with the sample API's tokens.
 */
export async function serviceIds(baseUrl: string, resource: Resource, query: Record<string, unknown>): Promise<string[]> {
  const client = createApiClient({ baseUrl, getTokens: async () => ({ accessToken: SAMPLE_ACCESS_TOKEN, refreshToken: SAMPLE_REFRESH_TOKEN }) });
  const ids: string[] = [];
  for (let page = 0; ; page++) {
    const params = { ...query, page, pageSize: 1000 };
    const result = resource === 'contacts' ? await client.listContacts(params as ContactListParams) : await client.listOrders(params as unknown as OrderListParams);
    ids.push(...result.records.map((r) => String((r.raw as { id: string }).id)));
    if (ids.length >= result.count || result.records.length === 0) return ids;
  }
}

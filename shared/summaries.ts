/**
 * The templates and campaigns of the cached orders (§2.3 `template`, `campaign`): what their lists
 * ask the cache for and the rows they get back. The service lists neither on its own; the cache
 * groups its orders by `template.id` and by `campaign.id` each time a sync publishes them, so both
 * lists work offline. Each row describes the group by its newest order (the highest id, the orders'
 * default order: §2.3 gives orders no creation time).
 *
 * Pure module: zod and other shared/ files only.
 */
import { z } from 'zod';
import { sortDirection } from './query.ts';

const MAX_SEARCH = 200;

/** Columns the templates list can sort by. */
export const TEMPLATE_SORT_COLUMNS = ['lastUsed', 'title', 'type', 'creator', 'orders', 'recipients'] as const;
export const templateSortColumn = z.enum(TEMPLATE_SORT_COLUMNS);
export type TemplateSortColumn = z.infer<typeof templateSortColumn>;

/** Columns the campaigns list can sort by. */
export const CAMPAIGN_SORT_COLUMNS = ['lastUsed', 'name', 'type', 'scheduleType', 'deliveryDate', 'orders', 'recipients', 'deliveredShare'] as const;
export const campaignSortColumn = z.enum(CAMPAIGN_SORT_COLUMNS);
export type CampaignSortColumn = z.infer<typeof campaignSortColumn>;

/**
 * The templates list: a search (every word must match, the last one as a prefix, diacritics
 * folded, as in the contacts and orders tables) over id, title, type and creator, and a sort.
 * No sort: the most recently used first (`lastUsed` descending); ties by id.
 */
export const templateQuerySchema = z
  .object({
    search: z.string().max(MAX_SEARCH).optional(),
    sort: z.object({ column: templateSortColumn, direction: sortDirection }).strict().optional(),
  })
  .strict();
export type TemplateQuery = z.infer<typeof templateQuerySchema>;

/** The campaigns list: a search over id, name, description and types, and a sort (see {@link templateQuerySchema}). */
export const campaignQuerySchema = z
  .object({
    search: z.string().max(MAX_SEARCH).optional(),
    sort: z.object({ column: campaignSortColumn, direction: sortDirection }).strict().optional(),
  })
  .strict();
export type CampaignQuery = z.infer<typeof campaignQuerySchema>;

/** One template of the cached orders (`template.*` of its newest order, counts over all its orders). */
export interface TemplateRow {
  /** `template.id`; '' groups the orders that carry none (kept as invalid). */
  id: string;
  title: string;
  templateType: string;
  templateUrl: string;
  thumbnailUrl: string;
  /**
   * `preview/<key>` of `thumbnailUrl` (shared/previewKey.ts `previewPath`), for an `img` in the page;
   * null when there is no thumbnail address. It answers 404 until a sync stored the image.
   */
  previewPath: string | null;
  /** A sync stored the preview image (the profile's previews setting on, the download succeeded). */
  previewStored: boolean;
  creatorId: string;
  creatorName: string;
  /** Orders that use the template. */
  orders: number;
  /** Recipients of those orders (OrderContact entries). */
  recipients: number;
  /** Of those, the ones with `isDelivered` true. */
  delivered: number;
  /** The newest order that uses it (highest id): "last used". */
  lastOrderId: string;
  /** The latest `campaign.deliveryDate` among its orders, as the service wrote it; null when none has one. */
  lastDeliveryDate: string | null;
}

/** One campaign of the cached orders (`campaign.*` of its newest order, counts over all its orders). */
export interface CampaignRow {
  /** `campaign.id`; '' groups the orders that carry none (kept as invalid). */
  id: string;
  name: string;
  description: string;
  campaignType: string;
  scheduleType: string;
  useType: string | null;
  orders: number;
  recipients: number;
  delivered: number;
  /** `delivered / recipients`, 0…1; null when its orders have no recipients. */
  deliveredShare: number | null;
  /** The newest order of the campaign (highest id). */
  lastOrderId: string;
  /** The latest `campaign.deliveryDate` among its orders; null when none has one. */
  lastDeliveryDate: string | null;
}

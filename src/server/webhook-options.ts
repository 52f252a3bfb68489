/**
 * What the API is told about webhooks (`ApiOptions.webhooks`): per tool how
 * its sender proves itself, and where events go. Kept apart from the route
 * module so the API's options do not import a route.
 * @module
 */
import type { Dispatcher } from '../runtime/dispatch/dispatcher.js';
import type { WebhookTool } from './webhook-signature.js';

/** The API's webhook settings (the config's `webhooks` section, secrets resolved). */
export interface WebhookOptions {
  /** Per tool id (or name): how its webhook is authenticated and read. A tool not listed has no webhook (404). */
  tools: Readonly<Record<string, WebhookTool>>;
  /** Where events go. @default the store's workflow inbox (the runtime's store) */
  dispatcher?: Dispatcher;
  /** @default () => new Date() */
  now?: () => Date;
}

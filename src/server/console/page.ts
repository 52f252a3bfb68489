/**
 * What a console page is given and answers.
 * @module
 */
import type { Context } from 'hono';
import type { ApiContext } from '../context.js';
import type { ChangeHistory } from './history.js';
import type { Safe } from './html.js';
import type { ConsoleOptions } from './options.js';
import type { ConsoleUser } from './session.js';

/** What every page is given. */
export interface PageEnv {
  readonly ctx: ApiContext;
  readonly options: ConsoleOptions;
  readonly history: ChangeHistory;
  readonly user: ConsoleUser;
  readonly url: URL;
  readonly c: Context;
  /** Whether the request's session (or credential) still authenticates: long-lived answers (the event stream) ask again as they go. */
  readonly stillSignedIn: () => Promise<boolean>;
}

/** A page's answer: its title and body, or a whole Response (a redirect, an event stream, a fragment). */
export type PageResult = { title: string; body: Safe; status?: number } | Response;

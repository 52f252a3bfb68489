/**
 * Former home of the approval rules, now `approval-rules.ts`. Kept only so
 * `src/index.ts` and `src/config/sections.ts` resolve until they import
 * `./runtime/approval-rules.js` (or `./runtime/runtime.js`); delete it then.
 * @module
 */
export { approvalReason, type ApprovalRule } from './approval-rules.js';

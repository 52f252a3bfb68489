/**
 * `toolcap/runtime`: calling tools as their manifests say. The runtime and
 * its errors, provider types, observed health and backoff, approval rules,
 * identity (principals, API keys, tokens, rate limits) and trace export.
 * @example
 * import { Runtime, ProviderTypes } from 'toolcap/runtime';
 * const runtime = new Runtime({ registry, store, providers: new ProviderTypes() });
 * const result = await runtime.call('text.reverse', { text: 'abc' }, {});
 * @module
 */
export { Runtime, approvalReason } from '../runtime/runtime.js';
export type { RuntimeOptions, CallContext, CallResult, ApprovalView, ProviderResolver, ApprovalRule } from '../runtime/runtime.js';
export { CallError, CALL_ERROR_STATUS, callErrorWire } from '../runtime/errors.js';
export type { CallErrorCode, WireCallError } from '../runtime/errors.js';
export { HealthBook } from '../runtime/health.js';
export { ToolServices } from '../runtime/tool-services.js';
export type { ToolServicesOptions, ToolSettings, ToolExtras, ResultPolicy, ResultDrift } from '../runtime/tool-services.js';
export type { ToolSql, SqlParams, SqlResult, ToolDatabaseLocation } from '../store/tool-db.js';
export { backoffDelay, DEFAULT_BACKOFF } from '../runtime/backoff.js';
export type { BackoffPolicy } from '../runtime/backoff.js';
export { raceAbort } from '../runtime/abort.js';
export { ProviderTypes, builtinProviderTypes } from '../runtime/providers/provider-types.js';
export { ProviderError, ProviderConfigError, providerFault } from '../runtime/providers/types.js';
export type { ProviderType, ProviderInstance, ProviderCallContext, ProviderEnvironment, HealthCheckResult, ProviderFault } from '../runtime/providers/types.js';
export { createRedactor } from '../runtime/containment/redact.js';
export type { Redactor, RedactorOptions } from '../runtime/containment/redact.js';
export { recordedArguments } from '../runtime/containment/recorded-arguments.js';
export { EgressGuard, EgressError } from '../runtime/containment/egress.js';
export type { EgressPolicy } from '../runtime/containment/egress.js';
export { fileTracer, JsonLinesSpanExporter } from '../runtime/trace-file.js';
export { createTracing, RedactingSpanExporter } from '../runtime/tracing.js';
export type { Tracing } from '../runtime/tracing.js';
export { traceSettings, TRACE_EXPORTERS, OTLP_PROTOCOLS } from '../runtime/trace-settings.js';
export type { TraceSettings, TelemetryConfig, OtlpProtocol, TraceExporterName } from '../runtime/trace-settings.js';
export { Selections, SELECTION_ID } from '../runtime/selections.js';
export type { SelectionCandidate, SelectedOver, SelectionOptions } from '../runtime/selections.js';
export { ROLES, ACTIONS, can, resolvePersona, allowedPersonas, mayDecide } from '../runtime/identity/principal.js';
export type { Principal, Role, Action, PersonaResolution } from '../runtime/identity/principal.js';
export { Authenticator } from '../runtime/identity/authenticate.js';
export type { AuthOutcome, AuthFailureCode, AuthenticatorOptions } from '../runtime/identity/authenticate.js';
export { issueApiKey, parseApiKey } from '../runtime/identity/api-keys.js';
export { resolveAuthConfig } from '../runtime/identity/auth-config.js';
export type { AuthConfig, OidcConfig } from '../runtime/identity/auth-config.js';
export { CallRateLimiter } from '../runtime/identity/rate-limit.js';
export type { RateLimitConfig } from '../runtime/identity/rate-limit.js';
export { OAuthVault, connectCommand } from '../runtime/oauth/vault.js';
export type { OAuthVaultOptions } from '../runtime/oauth/vault.js';
export { connectOAuth, OAuthConnectError } from '../runtime/oauth/connect.js';
export type { ConnectOptions, ConnectResult } from '../runtime/oauth/connect.js';
export type { ProviderOAuthToken } from '../runtime/providers/types.js';
export { ProbeAdapters, builtinProbeAdapters, taskSnapshot, isTaskSource, withProbeFiles } from '../runtime/probes/index.js';
export type { ProbeAdapter, ProbeContext, ProbeCall, Observation, SourceReport, SourceStatus, TaskSnapshot, SnapshotRequest } from '../runtime/probes/index.js';

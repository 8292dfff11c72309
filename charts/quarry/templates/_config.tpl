{{/*
Non-secret environment of each component: the data of its ConfigMap. The Deployment's checksum
annotation hashes the same output, so a change here rolls exactly the pods that read it.
Usage: include (printf "quarry.config.%s" $component) $
*/}}

{{- define "quarry.config.common" -}}
HOST: "0.0.0.0"
LOG_LEVEL: {{ .Values.logLevel | quote }}
{{- with .Values.otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- end }}

{{/* OpenSearch, Qdrant and embeddings: search and indexer must open the same indexes. */}}
{{- define "quarry.config.searchEngines" -}}
OPENSEARCH_URL: {{ required "opensearch.url is required: OpenSearch holds the BM25 index (the embedded fallback is single-writer)" .Values.opensearch.url | quote }}
OPENSEARCH_INDEX: {{ .Values.opensearch.index | quote }}
QDRANT_URL: {{ required "qdrant.url is required: Qdrant holds the vector index (the embedded fallback is single-writer)" .Values.qdrant.url | quote }}
QDRANT_COLLECTION: {{ .Values.qdrant.collection | quote }}
{{- with .Values.embeddings.url }}
EMBEDDINGS_URL: {{ . | quote }}
EMBEDDINGS_MODEL: {{ required "embeddings.model is required when embeddings.url is set" $.Values.embeddings.model | quote }}
{{- end }}
{{- with .Values.embeddings.dimension }}
EMBEDDINGS_DIMENSION: {{ . | int | quote }}
{{- end }}
{{- if not (kindIs "invalid" .Values.embeddings.similarityFloor) }}
EMBEDDINGS_SIMILARITY_FLOOR: {{ .Values.embeddings.similarityFloor | quote }}
{{- end }}
QUARRY_DATA_DIR: /tmp/quarry
{{- end }}

{{/* The gateway's public base URL: gateway.oauth.publicUrl, else https://<first ingress host>, else empty. */}}
{{- define "quarry.publicUrl" -}}
{{- $publicUrl := .Values.gateway.oauth.publicUrl }}
{{- if and (not $publicUrl) .Values.ingress.enabled .Values.ingress.hosts }}
{{- $publicUrl = printf "https://%s" (first .Values.ingress.hosts).host }}
{{- end }}
{{- $publicUrl }}
{{- end }}

{{/*
The gRPC services accept service accounts' tokens (ADR 0036) from the embedded authorization
server: its issuer is the public URL (the tokens' iss), but the keys are fetched from the
gateway Service inside the cluster, so no service depends on the ingress or public DNS. Off
with an external issuer (it issues no service-account tokens) or without a public URL.
*/}}
{{- define "quarry.config.serviceTokens" -}}
{{- $publicUrl := include "quarry.publicUrl" . }}
{{- if and .Values.gateway.oauth.serviceTokens (not .Values.gateway.oauth.issuer) $publicUrl }}
{{- $gateway := include "quarry.componentName" (dict "root" . "component" "gateway") }}
QUARRY_SERVICE_TOKEN_ISSUER: {{ $publicUrl | quote }}
QUARRY_SERVICE_TOKEN_JWKS_URL: {{ printf "http://%s.%s.svc.%s:8080/oauth/jwks" $gateway .Release.Namespace .Values.clusterDomain | quote }}
{{- end }}
{{- end }}

{{/* Where the gateway reads the embedded authorization server's signing keys from a Secret; empty: PostgreSQL. */}}
{{- define "quarry.signingKeysFile" -}}
{{- with .Values.gateway.oauth }}
{{- if and .signingKeysSecret.name (not .issuer) }}
{{- printf "/etc/quarry/oauth-signing-keys/%s" .signingKeysSecret.key }}
{{- end }}
{{- end }}
{{- end }}

{{/* Where the plan engine reads the audit checkpoints' signing key from a Secret; empty: no checkpoints. */}}
{{- define "quarry.auditSigningKeyFile" -}}
{{- with .Values.planEngine.audit.signingKeySecret }}
{{- if .name }}
{{- printf "/etc/quarry/audit-signing-key/%s" .key }}
{{- end }}
{{- end }}
{{- end }}

{{/* One quota's default for every org (values quotas.*): the variable only when a limit is set. */}}
{{- define "quarry.config.quota" -}}
{{- if not (kindIs "invalid" .value) }}
{{ .name }}: {{ .value | int64 | quote }}
{{- end }}
{{- end }}

{{- define "quarry.config.gateway" -}}
{{ include "quarry.config.common" . }}
PORT: "8080"
METRICS_PORT: "9463"
{{- $plan := include "quarry.address" (dict "root" . "component" "plan-engine" "port" 50051) }}
{{- $artifacts := include "quarry.address" (dict "root" . "component" "artifact-store" "port" 50052) }}
{{- $search := include "quarry.address" (dict "root" . "component" "search" "port" 50053) }}
{{- $extraction := include "quarry.address" (dict "root" . "component" "extraction" "port" 50054) }}
QUARRY_SERVICES: {{ printf "quarry.plan.v1.PlanService=%s,quarry.artifact.v1.ArtifactService=%s,quarry.search.v1.SearchService=%s,quarry.extraction.v1.ExtractionService=%s" $plan $artifacts $search $extraction | quote }}
QUARRY_TRUST_PROXY: {{ or .Values.gateway.trustProxy .Values.ingress.enabled | quote }}
{{- with .Values.gateway.allowedHosts }}
{{- $service := include "quarry.componentName" (dict "root" $ "component" "gateway") }}
{{- /* In-cluster names (helm test, internal clients) and loopback (kubectl port-forward) always work. */}}
{{- $hosts := concat . (list $service (printf "%s.%s" $service $.Release.Namespace) (printf "%s.%s.svc" $service $.Release.Namespace) (printf "%s.%s.svc.%s" $service $.Release.Namespace $.Values.clusterDomain) "localhost" "127.0.0.1") }}
{{- if $.Values.ingress.enabled }}
{{- range $.Values.ingress.hosts }}{{ $hosts = append $hosts .host }}{{ end }}
{{- end }}
QUARRY_ALLOWED_HOSTS: {{ $hosts | uniq | join "," | quote }}
{{- end }}
QUARRY_RATE_LIMIT_PER_MINUTE: {{ .Values.gateway.rateLimitPerMinute | int | quote }}
QUARRY_MODEL_TOOL_DEADLINE: {{ .Values.gateway.modelToolDeadline | quote }}
{{- with .Values.quotas.callsPerMinute }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_CALLS_PER_MINUTE_READ" "value" .read) }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_CALLS_PER_MINUTE_WRITE" "value" .write) }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_CALLS_PER_MINUTE_SEARCH" "value" .search) }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_CALLS_PER_MINUTE_MODEL" "value" .model) }}
{{- end }}
{{- with .Values.gateway.oauth }}
{{- with include "quarry.publicUrl" $ }}
QUARRY_PUBLIC_URL: {{ . | quote }}
{{- end }}
QUARRY_OAUTH_ACCESS_TOKEN_TTL: {{ .accessTokenTtl | quote }}
{{- with include "quarry.signingKeysFile" $ }}
QUARRY_OAUTH_SIGNING_KEYS_FILE: {{ . | quote }}
{{- end }}
{{- with .issuer }}
QUARRY_OAUTH_ISSUER: {{ . | quote }}
{{- end }}
{{- with .audience }}
QUARRY_OAUTH_AUDIENCE: {{ . | quote }}
{{- end }}
{{- with .jwksUrl }}
QUARRY_OAUTH_JWKS_URL: {{ . | quote }}
{{- end }}
QUARRY_OAUTH_EMAIL_CLAIM: {{ .emailClaim | quote }}
QUARRY_OAUTH_ORG_CLAIM: {{ .orgClaim | quote }}
{{- with .defaultOrg }}
QUARRY_OAUTH_DEFAULT_ORG: {{ . | quote }}
{{- end }}
{{- end }}
{{- end }}

{{- define "quarry.config.plan-engine" -}}
{{ include "quarry.config.common" . }}
PORT: "50051"
METRICS_PORT: "9464"
ARTIFACT_STORE_ADDRESS: {{ include "quarry.address" (dict "root" . "component" "artifact-store" "port" 50052) | quote }}
QUARRY_STALL_THRESHOLD: {{ .Values.planEngine.stallThreshold | quote }}
QUARRY_AUDIT_CHECKPOINT_INTERVAL: {{ .Values.planEngine.audit.checkpointInterval | quote }}
{{- with include "quarry.auditSigningKeyFile" . }}
QUARRY_AUDIT_SIGNING_KEY_FILE: {{ . | quote }}
{{- end }}
{{- with include "quarry.config.serviceTokens" . }}
{{ . }}
{{- end }}
{{- end }}

{{- define "quarry.config.artifact-store" -}}
{{ include "quarry.config.common" . }}
PORT: "50052"
METRICS_PORT: "9465"
PLAN_ENGINE_ADDRESS: {{ include "quarry.address" (dict "root" . "component" "plan-engine" "port" 50051) | quote }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_STORAGE_BYTES" "value" .Values.quotas.storageBytes) }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_ARTIFACTS" "value" .Values.quotas.artifacts) }}
{{- with include "quarry.config.serviceTokens" . }}
{{ . }}
{{- end }}
{{- end }}

{{- define "quarry.config.search" -}}
{{ include "quarry.config.common" . }}
PORT: "50053"
METRICS_PORT: "9466"
ARTIFACT_STORE_ADDRESS: {{ include "quarry.address" (dict "root" . "component" "artifact-store" "port" 50052) | quote }}
{{ include "quarry.config.searchEngines" . }}
{{- with include "quarry.config.serviceTokens" . }}
{{ . }}
{{- end }}
{{- end }}

{{- define "quarry.config.extraction" -}}
{{ include "quarry.config.common" . }}
{{- $x := .Values.extraction }}
PORT: "50054"
METRICS_PORT: "9467"
ARTIFACT_STORE_ADDRESS: {{ include "quarry.address" (dict "root" . "component" "artifact-store" "port" 50052) | quote }}
EXTRACTION_PROVIDER: {{ $x.provider | quote }}
{{- with $x.anthropic.model }}
ANTHROPIC_MODEL: {{ . | quote }}
{{- end }}
{{- with $x.anthropic.baseUrl }}
ANTHROPIC_BASE_URL: {{ . | quote }}
{{- end }}
{{- with $x.openai.baseUrl }}
OPENAI_BASE_URL: {{ . | quote }}
{{- end }}
{{- with $x.openai.model }}
OPENAI_MODEL: {{ . | quote }}
{{- end }}
EXTRACTION_TIMEOUT: {{ $x.timeout | quote }}
EXTRACTION_MAX_TOKENS: {{ $x.maxTokens | int | quote }}
EXTRACTION_SAMPLING: {{ $x.sampling | quote }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_EXTRACTIONS_PER_DAY" "value" .Values.quotas.extractionsPerDay) }}
{{- include "quarry.config.quota" (dict "name" "QUOTA_MODEL_TOKENS_PER_DAY" "value" .Values.quotas.modelTokensPerDay) }}
{{- with include "quarry.config.serviceTokens" . }}
{{ . }}
{{- end }}
{{- end }}

{{- define "quarry.config.indexer" -}}
{{ include "quarry.config.common" . }}
METRICS_PORT: "9468"
KAFKA_BROKERS: {{ required "kafka.brokers is required: the comma-separated host:port list of the Kafka brokers" .Values.kafka.brokers | quote }}
KAFKA_TLS: {{ .Values.kafka.tls | quote }}
{{- with .Values.kafka.sasl.mechanism }}
{{- if and (eq . "plain") (not $.Values.kafka.tls) }}
{{- fail "kafka.sasl.mechanism plain sends the password as is: set kafka.tls=true (or use scram-sha-256 / scram-sha-512)" }}
{{- end }}
KAFKA_SASL_MECHANISM: {{ . | quote }}
KAFKA_SASL_USERNAME: {{ required "kafka.sasl.username is required with kafka.sasl.mechanism" $.Values.kafka.sasl.username | quote }}
{{- end }}
QUARRY_OUTBOX_RELAY: {{ .Values.indexer.outboxRelay | quote }}
INDEXER_BATCH_SIZE: {{ .Values.indexer.batchSize | int | quote }}
QUARRY_OUTBOX_RETENTION: {{ .Values.indexer.outboxRetention | quote }}
QUARRY_OUTBOX_COMPACTION_INTERVAL: {{ .Values.indexer.outboxCompactionInterval | quote }}
{{ include "quarry.config.searchEngines" . }}
{{- end }}

{{/*
Expand the name of the chart.
*/}}
{{- define "quarry.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Create a default fully qualified app name. Truncated at 47 characters (not 63) so that
"<fullname>-artifact-store" and the other component names still fit DNS label limits.
If release name contains chart name it will be used as a full name.
*/}}
{{- define "quarry.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 47 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 47 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 47 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Create chart name and version as used by the chart label.
*/}}
{{- define "quarry.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Common labels.
*/}}
{{- define "quarry.labels" -}}
helm.sh/chart: {{ include "quarry.chart" . }}
{{ include "quarry.selectorLabels" . }}
app.kubernetes.io/part-of: quarry
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/*
Selector labels: every pod of the release (NetworkPolicies select on these).
*/}}
{{- define "quarry.selectorLabels" -}}
app.kubernetes.io/name: {{ include "quarry.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{/*
Create the name of the service account to use.
*/}}
{{- define "quarry.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "quarry.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/*
The image of one Quarry component: [<registry>/]quarry/<component>:<tag>.
Usage: include "quarry.image" (dict "root" $ "component" "gateway")
*/}}
{{- define "quarry.image" -}}
{{- $registry := .root.Values.image.registry | trimSuffix "/" }}
{{- $repository := printf "quarry/%s" .component }}
{{- if $registry }}{{ $repository = printf "%s/%s" $registry $repository }}{{ end }}
{{- printf "%s:%s" $repository (default .root.Chart.AppVersion .root.Values.image.tag) }}
{{- end }}

{{/*
The name of one component's resources: <fullname>-<component>.
Usage: include "quarry.componentName" (dict "root" $ "component" "gateway")
*/}}
{{- define "quarry.componentName" -}}
{{- printf "%s-%s" (include "quarry.fullname" .root) .component }}
{{- end }}

{{/*
Labels and selector labels of one component.
*/}}
{{- define "quarry.componentLabels" -}}
{{ include "quarry.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "quarry.componentSelectorLabels" -}}
{{ include "quarry.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/*
The Secret the services read: secrets.existingSecret, else the chart's own.
*/}}
{{- define "quarry.secretName" -}}
{{- default (include "quarry.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{/*
The Deployments of the chart, as data the templates loop over (fromYaml). For each component:
  values     the key of its block in values.yaml
  port       the port its Service exposes first; portName its name
  probe      grpc (native gRPC health probe on port) or http (GET liveness/readiness paths)
  metrics    the port serving /metrics, if any (scrape annotations, ServiceMonitor, NetworkPolicy)
  secretEnv  environment variable -> key in the Secret
*/}}
{{- define "quarry.components" -}}
gateway:
  values: gateway
  port: 8080
  portName: http
  probe: http
  liveness: /healthz
  readiness: /readyz
  metrics: 9463
  secretEnv:
    DATABASE_URL: database-url
    QUARRY_IDENTITY_KEY: identity-key
plan-engine:
  values: planEngine
  port: 50051
  portName: grpc
  probe: grpc
  metrics: 9464
  secretEnv:
    DATABASE_URL: database-url
    QUARRY_IDENTITY_KEY: identity-key
artifact-store:
  values: artifactStore
  port: 50052
  portName: grpc
  probe: grpc
  metrics: 9465
  secretEnv:
    DATABASE_URL: database-url
    QUARRY_IDENTITY_KEY: identity-key
search:
  values: search
  port: 50053
  portName: grpc
  probe: grpc
  metrics: 9466
  secretEnv:
    QUARRY_IDENTITY_KEY: identity-key
    QDRANT_API_KEY: qdrant-api-key
    EMBEDDINGS_API_KEY: embeddings-api-key
extraction:
  values: extraction
  port: 50054
  portName: grpc
  probe: grpc
  metrics: 9467
  secretEnv:
    DATABASE_URL: database-url
    QUARRY_IDENTITY_KEY: identity-key
    ANTHROPIC_API_KEY: anthropic-api-key
    OPENAI_API_KEY: openai-api-key
indexer:
  values: indexer
  port: 9468
  portName: metrics
  probe: http
  liveness: /metrics
  readiness: /metrics
  metrics: 9468
  secretEnv:
    DATABASE_URL: indexer-database-url
    KAFKA_SASL_PASSWORD: kafka-sasl-password
    QDRANT_API_KEY: qdrant-api-key
    EMBEDDINGS_API_KEY: embeddings-api-key
{{- end }}

{{/*
Secret keys that may be absent (optional engines and model providers).
*/}}
{{- define "quarry.optionalSecretKeys" -}}
kafka-sasl-password qdrant-api-key embeddings-api-key anthropic-api-key openai-api-key test-token
{{- end }}

{{/*
host:port of a component's Service inside the namespace.
Usage: include "quarry.address" (dict "root" $ "component" "plan-engine" "port" 50051)
*/}}
{{- define "quarry.address" -}}
{{- printf "%s:%v" (include "quarry.componentName" .) .port }}
{{- end }}

{{/*
Whether a component's Deployment is scaled by an HPA ("true" or "").
Usage: include "quarry.autoscaled" (dict "root" $ "values" "gateway")
*/}}
{{- define "quarry.autoscaled" -}}
{{- if dig "autoscaling" "enabled" false (index .root.Values .values) }}true{{ end }}
{{- end }}

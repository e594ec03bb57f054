{{/* Labels of every object: the ones config/ sets, plus Helm's own. */}}
{{- define "fluxgate.labels" -}}
app.kubernetes.io/name: fluxgate
app.kubernetes.io/component: controller
app.kubernetes.io/part-of: fluxgate
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* The controller's pods: what the Deployment, the Service and the monitors select. */}}
{{- define "fluxgate.selectorLabels" -}}
app.kubernetes.io/name: fluxgate
app.kubernetes.io/component: controller
{{- end -}}

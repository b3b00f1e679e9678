{{- define "keygate.name" -}}
{{- .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "keygate.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "keygate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "keygate.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "keygate.labels" -}}
{{ include "keygate.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "keygate.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "keygate.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* GOMEMLIMIT: given, or goMemLimitPercent of the memory limit in bytes. */}}
{{- define "keygate.goMemLimit" -}}
{{- if .Values.goMemLimit -}}
{{- .Values.goMemLimit -}}
{{- else if and .Values.resources.limits .Values.resources.limits.memory -}}
{{- $m := toString .Values.resources.limits.memory -}}
{{- $units := dict "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}
{{- $bytes := 0 -}}
{{- range $suffix, $mult := $units -}}
{{- if hasSuffix $suffix $m -}}
{{- $bytes = mul (trimSuffix $suffix $m | int64) $mult -}}
{{- end -}}
{{- end -}}
{{- if eq $bytes 0 -}}
{{- fail (printf "resources.limits.memory %q: use Ki, Mi, Gi or Ti, or set goMemLimit" $m) -}}
{{- end -}}
{{- div (mul $bytes .Values.goMemLimitPercent) 100 -}}
{{- end -}}
{{- end -}}

{{/* Seconds of a Go duration made of h, m and s (20s, 1m30s). */}}
{{- define "keygate.seconds" -}}
{{- $d := toString . -}}
{{- $total := 0 -}}
{{- range $part := regexFindAll "[0-9]+[hms]" $d -1 -}}
{{- $n := regexFind "[0-9]+" $part | int -}}
{{- if hasSuffix "h" $part -}}{{- $total = add $total (mul $n 3600) -}}
{{- else if hasSuffix "m" $part -}}{{- $total = add $total (mul $n 60) -}}
{{- else -}}{{- $total = add $total $n -}}{{- end -}}
{{- end -}}
{{- $total -}}
{{- end -}}

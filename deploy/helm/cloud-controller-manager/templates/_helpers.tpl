{{/*
Object names are fixed, not derived from the release: a cluster runs one cloud-controller-manager, its Lease and
RBAC are cluster-wide, and the same names as deploy/kubernetes let a cluster move between the two with its Lease.
*/}}
{{- define "ccm.name" -}}cloud-controller-manager{{- end }}

{{/*
Every object's labels: the base's app.kubernetes.io/name, then Helm's. Selectors and the pod template carry only
the name, as in deploy/kubernetes: selectors cannot change, so objects applied with kustomize can be adopted.
*/}}
{{- define "ccm.labels" -}}
app.kubernetes.io/name: {{ include "ccm.name" . }}
{{ include "ccm.helmLabels" . }}
{{- end }}

{{- define "ccm.helmLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{/* The selector: the base's, or selectorLabels (hccm's chart's value, templates allowed as there). */}}
{{- define "ccm.selectorLabels" -}}
{{- if .Values.selectorLabels }}{{ tpl (toYaml .Values.selectorLabels) . }}{{ else }}{{ include "ccm.baseSelectorLabels" . }}{{ end }}
{{- end }}

{{- define "ccm.baseSelectorLabels" -}}
app.kubernetes.io/name: {{ include "ccm.name" . }}
{{- end }}

{{/*
The objects of a manifest under files/ (links into deploy/), as kustomize renders them into a namespace: each
namespaced object, ServiceAccount subject and PodMonitor namespaceSelector moved to the release's namespace, and
Helm's labels added. Called with (list $ "files/<name>.yaml").
*/}}
{{- define "ccm.objectsFrom" -}}
{{- $root := index . 0 }}
{{- range $doc := regexSplit "(?m)^---$" ($root.Files.Get (index . 1)) -1 }}
{{- $o := fromYaml $doc }}
{{- if $o }}
{{- $meta := $o.metadata }}
{{- if hasKey $meta "namespace" }}{{ $_ := set $meta "namespace" $root.Release.Namespace }}{{ end }}
{{- $_ := set $meta "labels" (merge (dict) (fromYaml (include "ccm.helmLabels" $root)) ($meta.labels | default dict)) }}
{{- range $s := $o.subjects | default list }}
{{- if eq $s.kind "ServiceAccount" }}{{ $_ := set $s "namespace" $root.Release.Namespace }}{{ end }}
{{- end }}
{{- if and $o.spec (kindIs "map" $o.spec) }}
{{- with $o.spec.namespaceSelector }}{{ $_ := set . "matchNames" (list $root.Release.Namespace) }}{{ end }}
{{- end }}
---
{{ toYaml $o }}
{{- end }}
{{- end }}
{{- end }}

{{/* One flag from (list name value): --name=value, or --name alone when the value is "" (as in hccm's chart). */}}
{{- define "ccm.flag" -}}
{{- $name := index . 0 }}{{ $value := index . 1 -}}
{{- if eq (toString $value) "" }}{{ printf "--%s" $name | quote }}{{ else }}{{ printf "--%s=%v" $name $value | quote }}{{ end }}
{{- end }}

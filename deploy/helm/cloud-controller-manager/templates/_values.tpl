{{/*
What the values mean where hccm's chart and the Proxmox CCM chart name the same thing differently (values.yaml says
which value is whose). Each helper is the one place a value is read.
*/}}

{{/* Deployment or DaemonSet: kind, or the Proxmox CCM chart's useDaemonSet. */}}
{{- define "ccm.kind" -}}
{{- .Values.useDaemonSet | ternary "DaemonSet" .Values.kind }}
{{- end }}

{{/* The provider's name: args' cloud-provider (hccm's map form) or cloudProvider. */}}
{{- define "ccm.provider" -}}
{{- $args := .Values.args | default list }}
{{- if and (kindIs "map" $args) (hasKey $args "cloud-provider") }}{{ get $args "cloud-provider" }}{{ else }}{{ .Values.cloudProvider }}{{ end }}
{{- end }}

{{/*
The Secret mounted as the cloud-config, "" for none: existingConfigSecret, else cloudConfig.secretName, else (null)
the default one, except for hcloud, which reads the environment as hccm does.
*/}}
{{- define "ccm.cloudConfigSecret" -}}
{{- if .Values.existingConfigSecret }}{{ .Values.existingConfigSecret }}
{{- else if kindIs "string" .Values.cloudConfig.secretName }}{{ .Values.cloudConfig.secretName }}
{{- else if ne (include "ccm.provider" .) "hcloud" }}cloud-controller-manager-cloud-config
{{- end }}
{{- end }}

{{/* The Secret the chart writes `config` into: cloudConfig.secretName or the default name. */}}
{{- define "ccm.configSecretName" -}}
{{- .Values.cloudConfig.secretName | default "cloud-controller-manager-cloud-config" }}
{{- end }}

{{/* "true" when `config` is to be written into a Secret: not empty, and its clusters (if any) not empty. */}}
{{- define "ccm.writesConfig" -}}
{{- $c := .Values.config | default dict }}
{{- if and $c (or (not (hasKey $c "clusters")) $c.clusters) }}true{{ end }}
{{- end }}

{{/* hccm's chart's selectorLabels name hccm's helper; here it is this chart's fixed name. */}}
{{- define "hcloud-cloud-controller-manager.name" -}}{{ include "ccm.name" . }}{{- end }}

{{/* The pod template's labels: the selector's, the base's name, podLabels. */}}
{{- define "ccm.podLabels" -}}
{{- toYaml (merge (dict) (fromYaml (include "ccm.selectorLabels" .)) (fromYaml (include "ccm.baseSelectorLabels" .)) (.Values.podLabels | default dict)) }}
{{- end }}

{{/* imagePullSecrets from image.pullSecrets (hccm's: names or {name}) and imagePullSecrets (the Proxmox CCM chart's). */}}
{{- define "ccm.imagePullSecrets" -}}
{{- $out := list }}
{{- range concat (.Values.image.pullSecrets | default list) (.Values.imagePullSecrets | default list) }}
{{- $out = append $out (kindIs "string" . | ternary (dict "name" .) .) }}
{{- end }}
{{- with $out }}{{ toYaml . }}{{ end }}
{{- end }}

{{/* The Deployment's strategy or the DaemonSet's updateStrategy, when values give one. */}}
{{- define "ccm.strategy" -}}
{{- $s := .Values.updateStrategy | default dict }}
{{- if and (ne (include "ccm.kind" .) "DaemonSet") .Values.strategy }}{{ $s = .Values.strategy }}{{ end }}
{{- with $s }}{{ toYaml . }}{{ end }}
{{- end }}

{{/*
The image. A peer's own image (hccm's or the Proxmox CCM's repository, as their values files carry it) counts as
unset, its tag with it: switching a release to this chart with that file runs this chart's image.
*/}}
{{- define "ccm.image" -}}
{{- $repo := .Values.image.repository }}
{{- $tag := tpl (.Values.image.tag | default .Chart.AppVersion) . }}
{{- range list "hetznercloud/hcloud-cloud-controller-manager" "sergelogvinov/proxmox-cloud-controller-manager" }}
{{- if hasSuffix . $repo }}{{ $repo = "registry.example.com/cloud-controller-manager" }}{{ $tag = $.Chart.AppVersion }}{{ end }}
{{- end }}
{{- printf "%s:%s" $repo $tag }}
{{- end }}

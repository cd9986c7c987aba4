{{- define "helper.fullname" -}}
{{ .Release.Name }}-{{ .Values.name }}
{{- end }}

{{- define "helper.tolerations" -}}
tolerations:
- key: dedicated
  operator: Equal
  value: web
  effect: NoSchedule # want "toleration-seconds-requires-noexecute"
  tolerationSeconds: 30
{{- end }}

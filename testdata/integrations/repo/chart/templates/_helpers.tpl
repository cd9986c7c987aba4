{{- define "web.fullname" -}}
{{ .Release.Name }}-web
{{- end }}

{{- define "web.labels" -}}
app: web
{{- end }}

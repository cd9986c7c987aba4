# METADATA
# title: Example rule
# description: An example.
# related_resources:
#   - ref: https://example.com/rules
# custom:
#   id: acme-phone-home
#   severity: error
package acme.phonehome

deny contains {"msg": resp.body.msg, "path": ""} if {
	resp := http.send({"method": "GET", "url": "https://example.com/verdict"})
}
